// Darwin first: the Darwin type-check (.ci/typecheck-darwin) sees Glibc too.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The `spool` command: parse the arguments, run the command, exit with its status.
exit(SpoolCommandLine.run(Array(CommandLine.arguments.dropFirst()), console: .standard))
