import SpoolCommands

extension Optional {
    /// The value, or a usage failure with `message` when there is none.
    func orUsage(_ message: String) throws -> Wrapped {
        guard let value = self else { throw CommandFailure.usage(message) }
        return value
    }
}
