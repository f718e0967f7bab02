import SpoolCommands

// The process tests' harness: the workloads the tests run as child processes and kill.
Program(
    name: "SpoolHarness",
    introduction: [
        "The workloads Spool's process tests run as child processes (kill -9, SIGSTOP, several owners",
        "and producers at once). Not a user's tool: `spool` is.",
    ],
    notes: """
        Each line a command prints is printed only after the call it reports returned (its change
        is durable), so that a line a killed child printed is a promise the queue must keep.
        """,
    commands: [ExerciseCommand.command, OwnCommand.command, ProduceCommand.command]
).runAsProcess()
