import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// One rule for the same bytes (issue #43): random records of any operation, written through the codec
/// into a queue directory (a snapshot file first, sometimes), are read by strict replay (open's and
/// `spool verify`'s path), by the inspecting replay (`spool dump`), by salvage and by an open; they must
/// agree record by record with a reference that applies the same records one by one, and every state
/// any of them accepts must meet every invariant (``QueueState/brokenInvariants()``).
///
/// Quick by default; `SPOOL_AGREEMENT_SEQUENCES=<n>` runs `n` sequences and `SPOOL_AGREEMENT_SEED=<s>`
/// replays one (docs/TESTING.md).
@Suite(.blocking) struct RecordAgreementTests {
    static let environment = ProcessInfo.processInfo.environment
    static var sequences: Int { environment["SPOOL_AGREEMENT_SEQUENCES"].flatMap(Int.init) ?? 400 }
    static var seeds: [UInt64] {
        if let seed = environment["SPOOL_AGREEMENT_SEED"].flatMap(UInt64.init) { return [seed] }
        return (0..<UInt64(sequences)).map { 0x5EED_0000 + $0 }
    }
    static let directory = "/agreement"
    static let instanceID = Array(UInt8(0x40)..<0x50)

    /// What the reference found: the state salvage must reach, the skips it must report, and the first
    /// record strict replay must refuse.
    struct Reference {
        var state = QueueState()
        var refusedRecords: [(path: String, offset: Int64)] = []
        var broken: [(record: Int, invariants: [BrokenInvariant])] = []
    }

    /// One queue directory's files, and the records of each with their offsets.
    struct Written {
        var files: [(path: String, bytes: [UInt8])] = []
        var records: [(path: String, offset: Int64, body: [UInt8], fileSequence: UInt64)] = []
    }

    static func write(seed: UInt64, records count: Int) -> Written {
        var generator = RecordGenerator(seed: seed)
        var written = Written()
        var peek = QueueState()
        let withSnapshot = Int.random(in: 0..<10, using: &generator.random) < 3
        func file(_ sequence: UInt64, firstLSN: UInt64, _ records: [[PlannedOperation]]) {
            let path = directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
            var bytes = FileHeader(instanceID: instanceID, sequence: sequence, firstLSN: firstLSN).encoded()
            for (index, record) in records.enumerated() {
                let body = Self.body(record)
                let offset = Int64(bytes.count)
                body.withUnsafeBytes {
                    _ = RecordFrame.append(
                        body: $0, type: .transaction, lsn: firstLSN + UInt64(index), groupIndex: 0,
                        seed: RecordFrame.checksumSeed(instanceID: instanceID), to: &bytes)
                }
                written.records.append((path, offset, body, sequence))
            }
            written.files.append((path, bytes))
        }
        var logRecords: [[PlannedOperation]] = []
        if withSnapshot {
            let snapshot = generator.snapshot()
            for record in snapshot { for planned in record { try? peek.apply(planned.operation) } }
            file(1, firstLSN: 1, snapshot)
        }
        for _ in 0..<count {
            let record = generator.record(after: peek)
            for planned in record { try? peek.apply(planned.operation) }
            logRecords.append(record)
        }
        file(withSnapshot ? 2 : 1, firstLSN: withSnapshot ? 51 : 1, logRecords)
        return written
    }

    /// A record's body: a restore alone, encoded as a snapshot's writer does; other operations through the codec.
    static func body(_ record: [PlannedOperation]) -> [UInt8] {
        guard record.count == 1, case .restore(let job) = record[0].operation else {
            return TransactionCodec.encode(record)
        }
        return DiskFieldRangeTests.body(version: job.hasOptions ? 3 : 2, count: 1) {
            SnapshotCodec.encodeRestore(job, payload: [], into: &$0)
        }
    }

    /// Applies the written records one by one as salvage does: a record that does not decode is skipped
    /// whole, an operation that does not apply is skipped, and either abandons a pending migration.
    static func reference(_ written: Written) -> Reference {
        var reference = Reference()
        for (index, record) in written.records.enumerated() {
            var refused = false
            let operations: [LogOperation]? = record.body.withUnsafeBytes { raw in
                try? TransactionCodec.decode(
                    raw, fileSequence: record.fileSequence,
                    bodyOffset: record.offset + Int64(LogFormat.frameHeaderSize))
            }
            if let operations {
                for operation in operations {
                    do {
                        try reference.state.apply(operation)
                    } catch {
                        refused = true
                        reference.state.abandonPendingMigration()
                    }
                }
            } else {
                refused = true
                reference.state.abandonPendingMigration()
            }
            if refused { reference.refusedRecords.append((record.path, record.offset)) }
            // A state within a pending migration is not one any reader ends in.
            if reference.state.pendingMigration == nil {
                let broken = reference.state.brokenInvariants()
                if !broken.isEmpty { reference.broken.append((index, broken)) }
            }
        }
        reference.state.abandonPendingMigration()
        let broken = reference.state.brokenInvariants()
        if !broken.isEmpty { reference.broken.append((written.records.count, broken)) }
        return reference
    }

    static func disk(_ written: Written) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: directory)
        for file in written.files { disk.setContents(of: file.path, file.bytes) }
        return disk
    }

    /// The jobs and indexes two states must agree on.
    static func same(_ one: QueueState, _ other: QueueState) -> Bool {
        one.jobs.values.sorted { $0.id < $1.id } == other.jobs.values.sorted { $0.id < $1.id }
            && one.uniqueKeys == other.uniqueKeys && one.earlierKeyCarriers == other.earlierKeyCarriers
            && one.nextSequence == other.nextSequence && one.dependents == other.dependents
            && one.parkedKeys == other.parkedKeys
    }

    /// Describes a disagreement for the failure message, with the records to replay it.
    static func describe(_ seed: UInt64, _ written: Written, _ problem: String) -> String {
        var lines = ["seed \(seed): \(problem)"]
        for record in written.records {
            let operations = record.body.withUnsafeBytes {
                (try? TransactionCodec.decode($0, fileSequence: record.fileSequence, bodyOffset: 0)) ?? []
            }
            let name = record.path.split(separator: "/").last!.dropFirst(4).prefix(16).drop { $0 == "0" }
            lines.append("  \(name)@\(record.offset): " + operations.map(Self.short).joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }

    /// An operation on one line: its case and the fields that matter to the rules.
    static func short(_ operation: LogOperation) -> String {
        switch operation {
        case .enqueue(let op):
            return "enqueue \(op.id) deps \(op.options.dependencies) key \(op.uniqueKey ?? "-") max \(op.maxAttempts)"
                + (op.options.periodic == nil ? "" : " periodic")
        case .claim(let op): return "claim \(op.id) token \(op.token)"
        case .restore(let job):
            return
                "restore \(job.id) \(job.state) seq \(job.sequence) waits \(job.waitingFor) key \(job.uniqueKey ?? "-") "
                + "attempts \(job.attempts)/\(job.maxAttempts) lease \(job.lease?.token ?? 0)"
        case .migrateJob(let image):
            return
                "migrate \(image.id) \(image.state) attempts \(image.attempts)/\(image.maxAttempts) key \(image.uniqueKey ?? "-")"
        case .snapshot: return "snapshot"
        default:
            let text = "\(operation)"
            return String(text.prefix(90))
        }
    }

    @Test func strictSalvageVerifyAndOpenAgreeAndEveryAcceptedStateIsSound() throws {
        var figures = (sequences: 0, records: 0, refused: 0, disagreements: 0)
        // Each kind of disagreement is reported once, with the first seed that shows it.
        var kinds: [String: UInt64] = [:]
        for seed in Self.seeds {
            let written = Self.write(seed: seed, records: 12 + Int(seed % 13))
            figures.sequences += 1
            figures.records += written.records.count
            let reference = Self.reference(written)
            figures.refused += reference.refusedRecords.count
            var problems: [String] = []
            if let first = reference.broken.first {
                let rules = Set(first.invariants.map(\.rule.rawValue)).sorted().joined(separator: ", ")
                problems.append("breaks \(rules): after record \(first.record), \(first.invariants)")
            }
            // Strict replay, as open and `spool verify` run it, and as `spool dump` inspects it.
            let disk = try Self.disk(written)
            let replay = LogReplay(directory: Self.directory, fileSystem: disk, mode: .strict)
            for (name, run) in [
                ("strict", { try replay.run() }), ("inspect", { try replay.run(inspect: { _, _, _, _ in }) }),
            ] as [(String, () throws -> LogReplay.Outcome)] {
                do {
                    let outcome = try run()
                    if let refused = reference.refusedRecords.first {
                        problems.append("\(name) accepted the record at \(refused.offset) in \(refused.path)")
                    } else if !Self.same(outcome.state, reference.state) {
                        problems.append("\(name) replayed another state")
                    }
                } catch let error as SpoolError {
                    let expected = reference.refusedRecords.first
                    if error.code != .corruption || error.path != expected?.path || error.offset != expected?.offset {
                        problems.append(
                            "\(name) refused \(error) where the reference refuses \(expected.map { "\($0)" } ?? "nothing")"
                        )
                    }
                }
            }
            // Salvage: the same state as the reference, each refused record reported.
            do {
                let outcome = try LogReplay(directory: Self.directory, fileSystem: disk, mode: .salvage).run()
                if !Self.same(outcome.state, reference.state) { problems.append("salvage replayed another state") }
                let skipped = outcome.report.skipped.map { "\($0.path)@\($0.offset)" }
                let expected = reference.refusedRecords.map { "\($0.path)@\($0.offset)" }
                if Array(Set(skipped)).sorted() != Array(Set(expected)).sorted() {
                    problems.append("salvage skipped \(skipped), the reference \(expected)")
                }
            } catch {
                problems.append("salvage refused: \(error)")
            }
            // Open refuses exactly when strict replay does, with the same file and offset.
            var configuration = Configuration()
            configuration.fileSystem = try Self.disk(written)
            configuration.clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
            configuration.runningJobsAtOpen = .keepUnexpiredLeases
            do {
                let queue = try JobQueue(directory: Self.directory, configuration: configuration)
                if let refused = reference.refusedRecords.first {
                    problems.append("open accepted the record at \(refused.offset) in \(refused.path)")
                }
                try? queue.close()
            } catch let error as SpoolError {
                let expected = reference.refusedRecords.first
                if error.code != .corruption || error.path != expected?.path || error.offset != expected?.offset {
                    problems.append(
                        "open refused \(error) where the reference refuses \(expected.map { "\($0)" } ?? "nothing")")
                }
            }
            if !problems.isEmpty {
                figures.disagreements += 1
                for problem in problems {
                    let category = String(problem.prefix { $0 != ":" })
                    if kinds[category] == nil {
                        kinds[category] = seed
                        Issue.record(Comment(rawValue: Self.describe(seed, written, problem)))
                    }
                }
            }
        }
        print(
            "record agreement: \(figures.sequences) sequences, \(figures.records) records "
                + "(\(figures.refused) refused), \(figures.disagreements) disagreements")
    }
}
