import Foundation
import Spool

/// One subcommand of a ``Program``: its name, its usage text, what arguments it takes and what it does.
package struct Command: Sendable {
    /// The word after the program's name.
    let name: String
    /// The synopsis, such as `claim DIR [--kind KIND] [--lease SECONDS]`.
    let synopsis: String
    /// What the command does, in one line, for the list of commands.
    let summary: String
    /// What the command does in detail, for `PROGRAM COMMAND --help`.
    let help: String
    /// The arguments the command accepts.
    let spec: ArgumentSpec
    /// Does the work and returns the exit status; throws ``CommandFailure`` or ``SpoolError``.
    let run: @Sendable (ParsedArguments, Console) throws -> Int32

    /// A command named `name` (see the properties).
    package init(
        name: String, synopsis: String, summary: String, help: String, spec: ArgumentSpec,
        run: @escaping @Sendable (ParsedArguments, Console) throws -> Int32
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.help = help
        self.spec = spec
        self.run = run
    }

    /// The synopsis after `prefix`, its later lines aligned under the first argument.
    func synopsis(after prefix: String) -> String {
        prefix + name + " " + synopsis.replacingLineBreaks(indent: prefix.count + name.count + 1)
    }
}

/// A command-line program made of ``Command``s (`spool`, and the process tests' harness): finds the
/// command, parses its arguments, runs it and turns failures into messages and exit statuses.
package struct Program: Sendable {
    /// The program's name, as its messages and usage print it.
    let name: String
    /// The lines `--help` prints between the usage line and the list of commands.
    let introduction: [String]
    /// Notes that apply to every command, printed after the list and after each command's help.
    let notes: String
    /// Every command, in the order the usage lists them.
    let commands: [Command]

    /// A program named `name` (see the properties).
    package init(name: String, introduction: [String], notes: String, commands: [Command]) {
        self.name = name
        self.introduction = introduction
        self.notes = notes
        self.commands = commands
    }

    /// `command`'s help text: synopsis, then description, then the program's notes.
    func usage(of command: Command) -> String {
        "\(command.synopsis(after: "usage: \(name) "))\n\n\(command.summary)\n\n\(command.help)\n\n\(notes)"
    }

    /// Runs the program with the bytes of its arguments (without the program name) and returns the exit
    /// status. An argument that is not valid UTF-8 reaches the command repaired, with its index
    /// noted, so that the command refuses it (see ``ParsedArguments/parse(_:invalidUTF8:spec:)``).
    package func run(rawArguments: [[UInt8]], console: Console) -> Int32 {
        var invalidUTF8 = Set<Int>()
        let arguments = rawArguments.enumerated().map { index, bytes in
            if let text = JobPresentation.utf8Text(Data(bytes)) { return text }
            invalidUTF8.insert(index)
            return String(decoding: bytes, as: UTF8.self)
        }
        return run(arguments, invalidUTF8: invalidUTF8, console: console)
    }

    /// Runs the program with `arguments` (without the program name) and returns the exit status;
    /// `invalidUTF8` holds the indexes of those that were not valid UTF-8.
    func run(_ arguments: [String], invalidUTF8: Set<Int> = [], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.writeErr(usageText)
            return ExitStatus.usage
        }
        if first == "--version" {
            console.writeOut(VersionText.text)
            return ExitStatus.success
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                    console.err("\(name) help: unknown command '\(arguments[1])'".escapingControlCharacters)
                    console.err("Run '\(name) --help' for the list of commands.")
                    return ExitStatus.usage
                }
                console.out(usage(of: command))
            } else {
                console.writeOut(usageText)
            }
            return ExitStatus.success
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.err("\(name): unknown command '\(first)'".escapingControlCharacters)
            console.err("Run '\(name) --help' for the list of commands.")
            return ExitStatus.usage
        }
        do {
            let parsed = try ParsedArguments.parse(
                Array(arguments.dropFirst()),
                invalidUTF8: Set(invalidUTF8.map { $0 - 1 }), spec: command.spec)
            if parsed.wantsHelp {
                console.out(usage(of: command))
                return ExitStatus.success
            }
            return try command.run(parsed, console)
        } catch let failure as CommandFailure {
            switch failure {
            case .usage(let message):
                console.err("\(name) \(command.name): \(message)".escapingControlCharacters)
                console.err(command.synopsis(after: "usage: \(name) "))
                console.err("Run '\(name) \(command.name) --help' for more.")
                return ExitStatus.usage
            case .operational(let message):
                console.err("\(name) \(command.name): \(message)".escapingControlCharacters)
                return ExitStatus.failure
            case .nothingReady(let message):
                console.err("\(name) \(command.name): \(message)".escapingControlCharacters)
                return ExitStatus.nothingReady
            }
        } catch let error as SpoolError {
            console.err("\(name) \(command.name): \(error)".escapingControlCharacters)
            return ExitStatus.failure
        } catch {
            console.err("\(name) \(command.name): \(error.localizedDescription)".escapingControlCharacters)
            return ExitStatus.failure
        }
    }
}
