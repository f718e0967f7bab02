import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Files a queue must not trust: links, strangers, newer formats. Each is
/// refused with a typed error and left exactly as it was.
@Suite(.blocking) struct HostileFileTests {
    @Test func aLockFileThatIsALinkIsNotFollowed() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        try JobQueue(directory: temp.queue, configuration: testConfiguration()).close()
        let outside = temp.path + "/precious.txt"
        try writeFile(outside, Array("do not touch".utf8))
        let lockPath = temp.queue + "/" + QueueDirectoryLayout.lockFileName
        try FileManager.default.removeItem(atPath: lockPath)
        try FileManager.default.createSymbolicLink(atPath: lockPath, withDestinationPath: outside)
        // Refused as a link, as a log file name that is a link is (`notAQueue`), not as a bare ELOOP.
        expectError(.notAQueue) { try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        #expect(try readFile(outside) == Array("do not touch".utf8))
    }

    @Test func aLogNameThatIsADirectoryOrALinkToOneIsRefused() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        try FileManager.default.createDirectory(
            atPath: temp.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1),
            withIntermediateDirectories: true)
        expectError(.notAQueue) { try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(
                atPath: temp.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1),
                isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func aSecondLogFromAnotherQueueIsRefusedAndLeftAlone() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let other = temp.path + "/other"
        for directory in [temp.queue, other] {
            let queue = try JobQueue(directory: directory, configuration: testConfiguration())
            try queue.enqueue(NewJob(kind: "k"))
            try closeChecked(queue)
        }
        // Another queue's first file, placed as this queue's second file.
        let stranger = try readFile(logFilePath(other))
        var renumbered = stranger
        let header = FileHeader(instanceID: Array(stranger[12..<28]), sequence: 2, firstLSN: 2).encoded()
        renumbered.replaceSubrange(0..<LogFormat.fileHeaderSize, with: header)
        let secondPath = temp.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 2)
        try writeFile(secondPath, renumbered)
        let before = try readFile(logFilePath(temp.queue))
        expectError(.corruption) { try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        #expect(try readFile(secondPath) == renumbered)
        #expect(try readFile(logFilePath(temp.queue)) == before)
    }
}
