/// The notes `spool --help` prints after its commands.
enum Usage {
    /// Notes that apply to every command.
    static let notes = """
        Every command opens the queue with runningJobsAtOpen = .keepUnexpiredLeases:
        claim and complete run as separate processes, so a job that `spool claim` leased
        stays running, and its token valid, until the lease (--lease, 300 s by default)
        expires. Complete or fail it before then. An expired lease is reclaimed by the next
        command: the job goes back to enqueued after its retry delay (or to failed when its
        attempts are spent), and a late complete or fail exits 1 with leaseLost.

        Only enqueue creates DIR; the other commands fail when it holds no queue. The
        read-only commands (show, list, stats, report, verify, dump) take no lock and never
        wait: they read the log while another process writes it, as of its last intact record.
        When another process owns DIR as a .shared queue (its OWNER file records a lease, even
        an expired one), enqueue and cancel go through the queue's inbox and return at once
        (the owner applies them when it ingests it), and the other commands fail at once naming
        the owner's process (exit 1, ownedElsewhere), unless --take-over is given, which takes
        the role of an owner whose lease has expired. A command that opens the queue waits up
        to 5 s while another process has it open .exclusive (as every other command does).
        Times are ISO 8601 in UTC with milliseconds (a year outside 0000-9999 with a sign and
        at least six digits). STATE is one of enqueued, running, succeeded, failed, cancelled.
        Arguments must be valid UTF-8 (exit 2 otherwise). Text output shows control characters
        in ids, kinds, keys and messages escaped as JSON does (\\n, \\u001b); --json is exact.

        Exit status: 0 done; 1 operational error (the message on stderr names the code,
        path, offset and errno), and for list, stats and report a damaged inbox file (all
        that can be read is shown, every such file named on stderr); 2 usage error; 3 claim
        found no job ready.
        A command that opens the queue says on stderr what its open left aside (an inbox
        file not ingested, with its offset and why; ranges salvage skipped).
        """
}

extension Program {
    /// The `spool` program: the commands a user of the queue needs.
    package static let spool = Program(
        name: "spool",
        introduction: [
            "Spool keeps a durable job queue in a directory. Each command opens the queue, does",
            "one thing and closes it; a change is on stable storage before it is reported.",
        ],
        notes: Usage.notes,
        commands: [
            EnqueueCommand.command, ClaimCommand.command, CompleteCommand.command, FailCommand.command,
            CancelCommand.command, RetryCommand.command, PauseCommand.pause, PauseCommand.resume,
            ListCommand.command, ShowCommand.command,
            VerifyCommand.command, DumpCommand.command, CompactCommand.command, StatsCommand.command,
            ReportCommand.command, DemoCommand.command,
        ])

    /// The text `--help` prints: the usage of every command, then the notes.
    var usageText: String {
        var lines = ["usage: \(name) COMMAND [ARGUMENTS]   (\(name) COMMAND --help for details)", ""]
        lines += introduction
        lines += ["", "Commands:"]
        for command in commands {
            lines.append(command.synopsis(after: "  \(name) "))
            lines.append("        " + command.summary)
        }
        lines.append("  \(name) --version")
        lines.append("        Print the library version and the format versions this build writes and reads.")
        lines.append("")
        lines.append(notes)
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// The string with each line after the first indented by `indent` spaces.
    func replacingLineBreaks(indent: Int) -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\n" + String(repeating: " ", count: indent))
    }
}
