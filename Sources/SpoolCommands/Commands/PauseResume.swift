import Foundation
import Spool

/// `spool pause` and `spool resume`: a kind's durable pause (no claim takes its jobs), and its end.
enum PauseCommand {
    /// `spool pause`.
    static let pause = Command(
        name: "pause",
        synopsis: "DIR KIND [--take-over]",
        summary: "Pause a kind: no claim takes its jobs until it is resumed (durable).",
        help: """
            \(QueueAccess.takeOverHelp)

            Records the pause (a record of its own, on stable storage before the command
            returns), then prints the paused kinds with when each was paused. Pausing a
            paused kind changes nothing. Jobs of the kind may still be enqueued and
            cancelled; running ones run on.
            """,
        spec: ArgumentSpec(positionals: ["DIR", "KIND"], flags: ["take-over"]),
        run: { arguments, console in try PauseCommand.run(arguments, console, resume: false) })

    /// `spool resume`.
    static let resume = Command(
        name: "resume",
        synopsis: "DIR KIND [--take-over]",
        summary: "Resume a paused kind: claims take its jobs again (durable).",
        help: """
            \(QueueAccess.takeOverHelp)

            Records the end of the pause, then prints the kinds still paused. Resuming a
            kind that is not paused changes nothing.
            """,
        spec: ArgumentSpec(positionals: ["DIR", "KIND"], flags: ["take-over"]),
        run: { arguments, console in try PauseCommand.run(arguments, console, resume: true) })

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console, resume: Bool) throws -> Int32 {
        let kind = arguments.positionals[1]
        let (changed, paused) = try QueueAccess.withQueue(
            arguments.positionals[0], takeOver: arguments.flag("take-over"), console: console
        ) { queue in
            let changed = resume ? try queue.resume(kind: kind) : try queue.pause(kind: kind)
            return (changed, try queue.pausedKinds())
        }
        let verb = resume ? "resumed" : "paused"
        console.out(changed ? "kind \(kind) \(verb)" : "kind \(kind) was \(resume ? "not paused" : "paused already")")
        for (name, since) in paused.sorted(by: { $0.key < $1.key }) {
            console.out("paused: \(name) since \(ISO8601.string(from: since))")
        }
        return ExitStatus.success
    }
}
