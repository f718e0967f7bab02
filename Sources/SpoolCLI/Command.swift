import Foundation
import Spool

/// One `spool` subcommand: its name, its usage text, what arguments it takes and what it does.
struct Command: Sendable {
    /// The word after `spool`.
    let name: String
    /// The synopsis, such as `claim DIR [--kind KIND] [--lease SECONDS]`.
    let synopsis: String
    /// What the command does, in one line, for the list of commands.
    let summary: String
    /// What the command does in detail, for `spool COMMAND --help`.
    let help: String
    /// The arguments the command accepts.
    let spec: ArgumentSpec
    /// Does the work and returns the exit status; throws ``CommandFailure`` or ``SpoolError``.
    let run: @Sendable (ParsedArguments, Console) throws -> Int32

    /// The command's help text: synopsis, then description.
    var usage: String {
        "\(synopsis(after: "usage: spool "))\n\n\(summary)\n\n\(help)\n\n\(Usage.notes)"
    }

    /// The synopsis after `prefix`, its later lines aligned under the first argument.
    func synopsis(after prefix: String) -> String {
        prefix + name + " " + synopsis.replacingLineBreaks(indent: prefix.count + name.count + 1)
    }
}

/// The `spool` program: finds the command, parses its arguments, runs it and
/// turns failures into messages and exit statuses.
enum SpoolCommandLine {
    /// Every command, in the order the usage lists them.
    static let commands: [Command] = [
        EnqueueCommand.command, ClaimCommand.command, CompleteCommand.command, FailCommand.command,
        CancelCommand.command, RetryCommand.command, PauseCommand.pause, PauseCommand.resume,
        ListCommand.command, ShowCommand.command,
        VerifyCommand.command, DumpCommand.command, CompactCommand.command, StatsCommand.command, ReportCommand.command,
        DemoCommand.command, ExerciseCommand.command, OwnCommand.command, ProduceCommand.command,
    ]

    /// Runs `spool` with the bytes of its arguments (without the program name) and returns the exit
    /// status. An argument that is not valid UTF-8 reaches the command repaired, with its index
    /// noted, so that the command refuses it (see ``ParsedArguments/parse(_:invalidUTF8:spec:)``).
    static func run(rawArguments: [[UInt8]], console: Console) -> Int32 {
        var invalidUTF8 = Set<Int>()
        let arguments = rawArguments.enumerated().map { index, bytes in
            if let text = JobPresentation.utf8Text(Data(bytes)) { return text }
            invalidUTF8.insert(index)
            return String(decoding: bytes, as: UTF8.self)
        }
        return run(arguments, invalidUTF8: invalidUTF8, console: console)
    }

    /// Runs `spool` with `arguments` (without the program name) and returns the exit status;
    /// `invalidUTF8` holds the indexes of those that were not valid UTF-8.
    static func run(_ arguments: [String], invalidUTF8: Set<Int> = [], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.writeErr(Usage.text)
            return ExitStatus.usage
        }
        if first == "--version" {
            console.writeOut(VersionText.text)
            return ExitStatus.success
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                    console.err("spool help: unknown command '\(arguments[1])'".escapingControlCharacters)
                    console.err("Run 'spool --help' for the list of commands.")
                    return ExitStatus.usage
                }
                console.out(command.usage)
            } else {
                console.writeOut(Usage.text)
            }
            return ExitStatus.success
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.err("spool: unknown command '\(first)'".escapingControlCharacters)
            console.err("Run 'spool --help' for the list of commands.")
            return ExitStatus.usage
        }
        do {
            let parsed = try ParsedArguments.parse(
                Array(arguments.dropFirst()),
                invalidUTF8: Set(invalidUTF8.map { $0 - 1 }), spec: command.spec)
            if parsed.wantsHelp {
                console.out(command.usage)
                return ExitStatus.success
            }
            return try command.run(parsed, console)
        } catch let failure as CommandFailure {
            switch failure {
            case .usage(let message):
                console.err("spool \(command.name): \(message)".escapingControlCharacters)
                console.err(command.synopsis(after: "usage: spool "))
                console.err("Run 'spool \(command.name) --help' for more.")
                return ExitStatus.usage
            case .operational(let message):
                console.err("spool \(command.name): \(message)".escapingControlCharacters)
                return ExitStatus.failure
            case .nothingReady(let message):
                console.err("spool \(command.name): \(message)".escapingControlCharacters)
                return ExitStatus.nothingReady
            }
        } catch let error as SpoolError {
            console.err("spool \(command.name): \(error)".escapingControlCharacters)
            return ExitStatus.failure
        } catch {
            console.err("spool \(command.name): \(error.localizedDescription)".escapingControlCharacters)
            return ExitStatus.failure
        }
    }
}
