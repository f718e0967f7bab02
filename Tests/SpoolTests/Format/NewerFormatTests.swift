import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A queue holding a file or a record from a newer version is refused with `newerFormat`, naming
/// both versions and where, and nothing in its directory changes: no torn tail is cut, no leftover
/// deleted, no file removed as a torn creation, whether the queue is opened or only verified.
@Suite(.blocking) struct NewerFormatTests {
    /// A queue of two log files, closed, with a `.tmp` leftover that an open would delete.
    private func makeQueue(_ temporary: TemporaryDirectory) throws -> String {
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("one".utf8), id: "one"))
        try queue.engine.lockedRollOver()
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("two".utf8), id: "two"))
        try closeChecked(queue)
        try writeFile(temporary.queue + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 9), [1, 2, 3])
        return temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 2)
    }

    /// Every file's bytes, by name.
    private func contents(of directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try readFile(directory + "/" + name)
        }
        return files
    }

    /// Opening and verifying both fail with `newerFormat` matching `check`, and change nothing.
    private func expectRefused(
        _ directory: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ check: (SpoolError) -> Bool
    ) throws {
        let before = try contents(of: directory)
        for attempt in ["open", "salvage", "verify"] {
            do {
                switch attempt {
                case "open": _ = try JobQueue(directory: directory, configuration: testConfiguration())
                case "salvage":
                    var configuration = testConfiguration()
                    configuration.recoveryMode = .salvage
                    _ = try JobQueue(directory: directory, configuration: configuration)
                default: _ = try LogInspector.verify(directory: directory)
                }
                Issue.record("\(attempt) accepted a newer format", sourceLocation: sourceLocation)
            } catch let error as SpoolError {
                #expect(error.code == .newerFormat, "\(attempt): \(error)", sourceLocation: sourceLocation)
                #expect(check(error), "\(attempt): \(error)", sourceLocation: sourceLocation)
            }
            #expect(
                try contents(of: directory) == before, "\(attempt) changed the directory",
                sourceLocation: sourceLocation)
        }
    }

    @Test func aNewerLastFileWithATornTailIsNeitherCutNorCleanedUp() throws {
        let temporary = TemporaryDirectory("newer")
        defer { temporary.cleanup() }
        let last = try makeQueue(temporary)
        var bytes = try readFile(last)
        let newer = FileHeader(
            version: LogFormat.currentVersion + 1, instanceID: Array(bytes[12..<28]), sequence: 2, firstLSN: 1)
        bytes.replaceSubrange(0..<LogFormat.fileHeaderSize, with: newer.encoded())
        bytes += [0x55, 0x66, 0x77]  // what this version would take for a torn tail
        try writeFile(last, bytes)
        try expectRefused(temporary.queue) { error in
            error.message.contains("version \(LogFormat.currentVersion + 1)")
                && error.message.contains("\(LogFormat.oldestReadableVersion) to \(LogFormat.currentVersion)")
                && error.path == last && error.offset == 8
        }
    }

    @Test func aNewerHeaderOfAnotherLayoutIsNotTakenForDamageOrATornCreation() throws {
        let temporary = TemporaryDirectory("newer")
        defer { temporary.cleanup() }
        let last = try makeQueue(temporary)
        // Magic and version 7, then a layout this build does not know, shorter than its header.
        try writeFile(last, LogFormat.magic + [7, 0, 12, 0, 0xAB, 0xCD])
        try expectRefused(temporary.queue) { $0.message.contains("version 7") && $0.path == last }
        // The same with a full-size header whose checksum this build cannot check.
        try writeFile(last, LogFormat.magic + [7, 0] + [UInt8](repeating: 0xEE, count: 60))
        try expectRefused(temporary.queue) { $0.message.contains("version 7") && $0.path == last }
    }

    /// A newer file that replay never reads (left over before the newest snapshot) is refused by verify
    /// as by open: both read every file's header first.
    @Test func aNewerFileBeforeTheSnapshotIsRefusedByVerifyAsByOpen() throws {
        let temporary = TemporaryDirectory("newer")
        defer { temporary.cleanup() }
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        configuration.autoCompaction = nil
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("one".utf8), id: "one"))
        let first = logFilePath(temporary.queue)
        var bytes = try readFile(first)
        _ = try queue.compact()  // file 1 replaced by snapshot 2
        try closeChecked(queue)
        let newer = FileHeader(
            version: LogFormat.currentVersion + 1, instanceID: Array(bytes[12..<28]), sequence: 1, firstLSN: 1)
        bytes.replaceSubrange(0..<LogFormat.fileHeaderSize, with: newer.encoded())
        try writeFile(first, bytes)  // as if a newer build had left it over
        try expectRefused(temporary.queue) { $0.path == first && $0.offset == 8 }
    }

    @Test(arguments: [TransactionCodec.bodyVersion + 1, TransactionCodec.bodyVersion + 2, 0xFF])
    func aRecordOfANewerBodyVersionIsRefusedWithBothVersionsAndItsOffset(_ version: UInt8) throws {
        let temporary = TemporaryDirectory("newer")
        defer { temporary.cleanup() }
        let last = try makeQueue(temporary)
        let lastLSN = try LogInspector.verify(directory: temporary.queue).lastLSN
        var bytes = try readFile(last)
        let offset = bytes.count
        let body: [UInt8] = [version, 1, 99, 0]
        body.withUnsafeBytes { raw in
            _ = RecordFrame.append(
                body: raw, type: .transaction, lsn: lastLSN + 1, groupIndex: 0,
                seed: RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28])), to: &bytes)
        }
        bytes += [0x55, 0x66]  // a torn tail after it
        try writeFile(last, bytes)
        try expectRefused(temporary.queue) { error in
            error.message.contains("body version \(version);")
                && error.message.contains("reads body versions 1 to \(TransactionCodec.bodyVersion)")
                && error.path == last && error.offset == Int64(offset)
        }
    }
}
