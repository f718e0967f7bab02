/// What a command accepts: how many positional arguments, which options take
/// a value and which are bare flags. Option names are written without `--`.
package struct ArgumentSpec: Sendable {
    /// Names of the positional arguments, in order, for messages.
    package var positionals: [String]
    /// How many trailing positional arguments may be left out.
    package var optionalPositionals = 0
    /// Options followed by a value, as `--name VALUE` or `--name=VALUE`.
    package var valueOptions: Set<String> = []
    /// Options that stand alone, such as `--json`.
    package var flags: Set<String> = []
    /// Value options that may be given more than once (`--tag A --tag B`), each of them in ``valueOptions`` too.
    var repeatableOptions: Set<String> = []

    /// A spec of the arguments named (see the properties).
    package init(
        positionals: [String], optionalPositionals: Int = 0, valueOptions: Set<String> = [],
        flags: Set<String> = [], repeatableOptions: Set<String> = []
    ) {
        self.positionals = positionals
        self.optionalPositionals = optionalPositionals
        self.valueOptions = valueOptions
        self.flags = flags
        self.repeatableOptions = repeatableOptions
    }
}

/// A command line split into positional arguments, option values and flags.
package struct ParsedArguments: Sendable {
    /// Positional arguments, in order.
    package var positionals: [String] = []
    /// Option values by name (without `--`).
    package var values: [String: String] = [:]
    /// Flags given.
    package var flags: Set<String> = []
    /// The values of the repeatable options, in the order given.
    var repeatedValues: [String: [String]] = [:]
    /// Whether `--help` or `-h` was given.
    var wantsHelp = false

    /// Splits `arguments` according to `spec`.
    ///
    /// `--help` wins over every other mistake, so that `spool claim --bogus --help`
    /// still prints help. After `--`, everything is positional.
    ///
    /// - Parameter invalidUTF8: The indexes in `arguments` of those whose bytes were not valid
    ///   UTF-8 (they arrive repaired, with U+FFFD): a value or positional argument among them is
    ///   refused, since using it would store or open something other than what was given.
    /// - Throws: ``CommandFailure/usage(_:)`` for an unknown or repeated option,
    ///   a missing value, an argument that is not valid UTF-8 or is empty, or the wrong number
    ///   of positional arguments.
    static func parse(
        _ arguments: [String], invalidUTF8: Set<Int> = [],
        spec: ArgumentSpec
    ) throws(CommandFailure) -> ParsedArguments {
        var parsed = ParsedArguments()
        var firstError: String?
        func note(_ message: String) { if firstError == nil { firstError = message } }
        func positionalName(_ position: Int) -> String {
            position < spec.positionals.count ? spec.positionals[position] : "argument \(position + 1)"
        }

        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                let name = positionalName(parsed.positionals.count)
                if invalidUTF8.contains(index - 1) { note("\(name) is not valid UTF-8") }
                if argument.isEmpty { note("\(name) is empty") }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else {
                note("unknown option \(argument)")
                continue
            }

            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if spec.flags.contains(name) {
                if inlineValue != nil { note("--\(name) takes no value") }
                if parsed.flags.contains(name) { note("--\(name) is given twice") }
                parsed.flags.insert(name)
            } else if spec.valueOptions.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                    if invalidUTF8.contains(index - 1) { note(Self.notUTF8(name)) }
                } else if index < arguments.count {
                    // The next argument is the value even when it starts with a dash (`--payload -1`).
                    value = arguments[index]
                    if invalidUTF8.contains(index) { note(Self.notUTF8(name)) }
                    index += 1
                } else {
                    note("--\(name) needs a value")
                    continue
                }
                if spec.repeatableOptions.contains(name) {
                    parsed.repeatedValues[name, default: []].append(value)
                    if value.isEmpty { note("the value of --\(name) is empty") }
                    continue
                }
                if parsed.values[name] != nil { note("--\(name) is given twice") }
                parsed.values[name] = value
            } else {
                note("unknown option --\(name)")
            }
        }

        if parsed.wantsHelp { return parsed }
        if let firstError { throw .usage(firstError) }
        let required = spec.positionals.count - spec.optionalPositionals
        if parsed.positionals.count < required {
            throw .usage("missing \(spec.positionals[parsed.positionals.count])")
        }
        if parsed.positionals.count > spec.positionals.count {
            throw .usage("unexpected argument '\(parsed.positionals[spec.positionals.count])'")
        }
        return parsed
    }

    /// Why the value of option `name` is refused when its bytes are not valid UTF-8.
    private static func notUTF8(_ name: String) -> String {
        "the value of --\(name) is not valid UTF-8 (it would be stored changed)"
            + (name == "payload" ? "; give exact bytes with --payload-file PATH, or - for standard input" : "")
    }

    /// The positional argument at `index`, or `nil` when an optional one was left out.
    func positional(_ index: Int) -> String? {
        index < positionals.count ? positionals[index] : nil
    }

    /// Whether flag `name` was given.
    package func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of option `name`, or `nil` when it was not given.
    package func value(_ name: String) -> String? { values[name] }

    /// The values of the repeatable option `name`, in the order given; empty when it was not given.
    func values(_ name: String) -> [String] { repeatedValues[name] ?? [] }

    /// The value of option `name`, which must be given.
    func required(_ name: String) throws(CommandFailure) -> String {
        guard let value = values[name] else { throw .usage("--\(name) is required") }
        return value
    }

    /// The value of option `name` as a whole number in `range`, or `nil` when it was not given.
    ///
    /// A whole number outside `range` (even one too large for `Int`) is refused with the range
    /// named; text that is not a whole number at all is refused as such.
    package func integer(_ name: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = values[name] else { return nil }
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        let whole = !digits.isEmpty && digits.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        guard whole else { throw .usage("--\(name) must be a whole number, not '\(text)'") }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("--\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return number
    }

    /// The value of option `name` as a finite number of seconds, or `nil` when it was not given.
    func seconds(_ name: String) throws(CommandFailure) -> Double? {
        guard let text = values[name] else { return nil }
        // Decimal only: `Double` also reads hexadecimal ("0x10" as 16), which no one means by seconds.
        let decimal = text.unicodeScalars.allSatisfy { "0123456789.-+eE".unicodeScalars.contains($0) }
        guard decimal, let number = Double(text), number.isFinite else {
            throw .usage("--\(name) must be a number of seconds, not '\(text)'")
        }
        return number
    }
}
