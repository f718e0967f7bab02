// Darwin first: the Darwin type-check (.ci/typecheck-darwin) sees Glibc too.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Program {
    /// Runs the program with this process's arguments and exits with the command's status. The
    /// arguments are read as the bytes the process was given: `CommandLine.arguments` repairs invalid
    /// UTF-8 silently, and a command must refuse such an argument instead.
    package func runAsProcess() -> Never {
        let rawArguments = (1..<Int(CommandLine.argc)).map { index -> [UInt8] in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return argument.withMemoryRebound(to: UInt8.self, capacity: strlen(argument)) {
                Array(UnsafeBufferPointer(start: $0, count: strlen(argument)))
            }
        }
        exit(run(rawArguments: rawArguments, console: .standard))
    }
}
