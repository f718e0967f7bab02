// Darwin first: the Darwin type-check (.ci/typecheck-darwin) sees Glibc too.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The `spool` command: parse the arguments, run the command, exit with its status. The arguments
// are read as the bytes the process was given: `CommandLine.arguments` repairs invalid UTF-8 silently.
let rawArguments = (1..<Int(CommandLine.argc)).map { index -> [UInt8] in
    guard let argument = CommandLine.unsafeArgv[index] else { return [] }
    return argument.withMemoryRebound(to: UInt8.self, capacity: strlen(argument)) {
        Array(UnsafeBufferPointer(start: $0, count: strlen(argument)))
    }
}
exit(SpoolCommandLine.run(rawArguments: rawArguments, console: .standard))
