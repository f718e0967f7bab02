import Foundation

// spool-bench: Spool's durable-queue workloads against a raw pwrite + fdatasync
// floor measured in the same directory and the same run.
//
//   swift run -c release spool-bench [--workload NAME[,NAME...]|all] [--json] [--dir DIR] ...
//
// See Options.swift for every flag.

if CommandLine.arguments.dropFirst().first == OpenMeasurement.childFlag {
    OpenMeasurement.runChild(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.dropFirst().first == ProducerChild.flag {
    ProducerChild.runChild(Array(CommandLine.arguments.dropFirst(2)))
}
let options = Options(Array(CommandLine.arguments.dropFirst()))
let context: Context
do {
    context = try Context(options: options)
} catch {
    Options.fail("\(error)")
}
let workloads: [(String, (Context) throws -> Void)] = [
    ("enqueue", runEnqueue), ("concurrent", runConcurrent), ("batch", runBatch), ("cycle", runCycle),
    ("open", runOpen), ("compaction", runCompaction), ("producers", runProducers), ("stall", runStall),
]
do {
    context.note("baseline")
    try runBaseline(context)
    for (name, run) in workloads where options.workloads.contains(name) {
        context.note(name)
        try run(context)
    }
} catch {
    context.removeDirectory()
    FileHandle.standardError.write(Data("spool-bench: \(error)\n".utf8))
    exit(1)
}
context.removeDirectory()
let report = Report(context: context)
if options.json {
    do { try report.printJSON() } catch { Options.fail("\(error)") }
} else {
    report.printTables()
}
