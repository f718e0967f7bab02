#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The `spool` command: parse the arguments, run the command, exit with its status.
exit(SpoolCommandLine.run(Array(CommandLine.arguments.dropFirst()), console: .standard))
