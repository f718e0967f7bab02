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
        CancelCommand.command, RetryCommand.command, ListCommand.command, ShowCommand.command,
        VerifyCommand.command, DumpCommand.command, CompactCommand.command, StatsCommand.command,
        DemoCommand.command, ExerciseCommand.command,
    ]

    /// Runs `spool` with `arguments` (without the program name) and returns the exit status.
    static func run(_ arguments: [String], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.writeErr(Usage.text)
            return ExitStatus.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                    console.err("spool help: unknown command '\(arguments[1])'")
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
            console.err("spool: unknown command '\(first)'")
            console.err("Run 'spool --help' for the list of commands.")
            return ExitStatus.usage
        }
        do {
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.wantsHelp {
                console.out(command.usage)
                return ExitStatus.success
            }
            return try command.run(parsed, console)
        } catch let failure as CommandFailure {
            switch failure {
            case .usage(let message):
                console.err("spool \(command.name): \(message)")
                console.err(command.synopsis(after: "usage: spool "))
                console.err("Run 'spool \(command.name) --help' for more.")
                return ExitStatus.usage
            case .operational(let message):
                console.err("spool \(command.name): \(message)")
                return ExitStatus.failure
            case .nothingReady(let message):
                console.err("spool \(command.name): \(message)")
                return ExitStatus.nothingReady
            }
        } catch let error as SpoolError {
            console.err("spool \(command.name): \(error)")
            return ExitStatus.failure
        } catch {
            console.err("spool \(command.name): \(error.localizedDescription)")
            return ExitStatus.failure
        }
    }
}
