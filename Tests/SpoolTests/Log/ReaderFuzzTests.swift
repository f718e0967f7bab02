import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Hostile bytes: valid logs mutated in every way a disk or a person can, opened
/// in both recovery modes. Open never traps or hangs; in strict mode it either
/// recovers a prefix of what was written or throws a typed error; in salvage
/// mode it opens and lists what it skipped, or throws a typed error.
@Suite(.blocking) struct ReaderFuzzTests {
    static let mutants = Int(ProcessInfo.processInfo.environment["SPOOL_READER_MUTANTS"] ?? "") ?? 1500

    /// A log written by a workload, and the job states after each of its records.
    private static func makeLog() throws -> (bytes: [UInt8], prefixes: [[String: StoredJob]]) {
        let run = SimulationRun()
        // One log file: no roll-over, no compaction.
        run.logFileSize = 1 << 30
        run.open()
        var generator = SeededGenerator(seed: 77)
        for op in WorkloadOp.random(count: 60, using: &generator)
        where op.description != "reopen" && op.description != "compact" {
            run.perform(op)
        }
        run.close()
        let path = SimulationRun.directory + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
        var bytes = try #require(run.disk.contents(of: path))
        // Drop the preallocated zeroes, if any: the mutations should hit records.
        let replay = try LogReplay(directory: SimulationRun.directory, fileSystem: run.disk, mode: .strict).run()
        bytes = Array(bytes[..<Int(replay.lastFileValidEnd)])
        var prefixes: [[String: StoredJob]] = [[:]]
        // The state after each record: replay the file cut after it.
        var boundaries: [Int] = []
        try bytes.withUnsafeBytes { raw in
            let seed = RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28]))
            _ = try LogScanner(bytes: raw, seed: seed, isLastFile: true, mode: .strict).scan(
                from: LogFormat.fileHeaderSize, expectedLSN: 1
            ) { event in
                if case .record(let found) = event { boundaries.append(found.end) }
            }
        }
        for end in boundaries {
            let disk = SimulatedDisk()
            try disk.createDirectory(at: SimulationRun.directory)
            disk.setContents(of: path, Array(bytes[..<end]))
            prefixes.append(
                comparableJobs(
                    try LogReplay(directory: SimulationRun.directory, fileSystem: disk, mode: .strict).run().state))
        }
        return (bytes, prefixes)
    }

    private static func mutate(_ original: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = original
        let body = LogFormat.fileHeaderSize..<bytes.count
        func position() -> Int { Int.random(in: body, using: &generator) }
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            guard bytes.count > LogFormat.fileHeaderSize + 8 else { break }
            switch Int.random(in: 0..<7, using: &generator) {
            case 0:
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            case 1:
                bytes.removeSubrange(Int.random(in: LogFormat.fileHeaderSize..<bytes.count, using: &generator)...)
            case 2:
                let start = Int.random(in: LogFormat.fileHeaderSize..<bytes.count, using: &generator)
                let end = min(bytes.count, start + Int.random(in: 1...200, using: &generator))
                for index in start..<end { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
            case 3:
                let start = Int.random(in: LogFormat.fileHeaderSize..<bytes.count, using: &generator)
                let length = min(bytes.count - start, Int.random(in: 1...300, using: &generator))
                bytes.insert(
                    contentsOf: bytes[start..<(start + length)],
                    at: Int.random(in: LogFormat.fileHeaderSize...bytes.count, using: &generator))
            case 4:
                let a = Int.random(in: LogFormat.fileHeaderSize..<(bytes.count - 4), using: &generator)
                let b = Int.random(in: LogFormat.fileHeaderSize..<(bytes.count - 4), using: &generator)
                let length = min(Int.random(in: 1...100, using: &generator), bytes.count - max(a, b))
                let first = Array(bytes[a..<(a + length)])
                let second = Array(bytes[b..<(b + length)])
                bytes.replaceSubrange(b..<(b + length), with: first)
                bytes.replaceSubrange(a..<(a + length), with: second)
            case 5:
                // A length field (or any four bytes) set huge.
                let start = min(position(), bytes.count - 4)
                bytes.replaceSubrange(
                    start..<(start + 4), with: [0xFF, 0xFF, 0xFF, UInt8.random(in: 0...0xFF, using: &generator)])
            default:
                bytes += (0..<Int.random(in: 1...600, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
        }
        return bytes
    }

    @Test func mutatedLogsNeverTrapAndRecoverAPrefixOrFailTyped() throws {
        let (original, prefixes) = try Self.makeLog()
        var generator = SeededGenerator(seed: 1234)
        var outcomes: [String: Int] = [:]
        let path = SimulationRun.directory + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
        for round in 0..<Self.mutants {
            let mutant = Self.mutate(original, using: &generator)
            for mode in RecoveryMode.allCases {
                let disk = SimulatedDisk()
                try disk.createDirectory(at: SimulationRun.directory)
                disk.setContents(of: path, mutant)
                var configuration = Configuration()
                configuration.fileSystem = disk
                configuration.clock = ManualClock()
                configuration.recoveryMode = mode
                configuration.runningJobsAtOpen = .keepUnexpiredLeases
                configuration.leaseDuration = 100_000_000
                do {
                    let queue = try JobQueue(directory: SimulationRun.directory, configuration: configuration)
                    let state = queue.engine.stateSnapshot
                    if mode == .strict {
                        let jobs = comparableJobs(state)
                        #expect(
                            prefixes.contains(jobs),
                            "round \(round): strict open recovered a state that is no prefix of the log")
                    }
                    checkInvariants(state)
                    try closeChecked(queue)
                    outcomes[
                        "\(mode) opened" + (queue.recoveryReport.skipped.isEmpty ? "" : " with skips"), default: 0] += 1
                } catch let error as SpoolError {
                    let typed: [SpoolError.Code] = [.corruption, .notAQueue, .newerFormat]
                    #expect(typed.contains(error.code), "round \(round) \(mode): \(error)")
                    outcomes["\(mode) \(error.code)", default: 0] += 1
                }
            }
        }
        print(
            "reader fuzz: \(Self.mutants) mutants: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        #expect(outcomes["strict corruption", default: 0] > 0 && outcomes["strict opened", default: 0] > 0)
    }
}
