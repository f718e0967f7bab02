import Foundation
import Testing

@testable import Spool

/// A configuration for semantics tests: a pinned clock, leases kept across reopens.
func semanticsConfiguration(_ clock: ManualClock) -> Configuration {
    var configuration = testConfiguration(clock: clock)
    configuration.runningJobsAtOpen = .keepUnexpiredLeases
    return configuration
}

/// Reopens the queue, then compacts and reopens it again: each time the jobs (as the API shows
/// them), the chain and key indexes and the claim order must be what they were. Returns the open queue.
func reopenedTwice(
    _ queue: JobQueue, clock: ManualClock,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JobQueue {
    let directory = queue.directory
    let conditions = queue.deviceConditions
    let jobs = try queue.jobs()
    let state = queue.engine.stateSnapshot
    checkInvariants(state, sourceLocation: sourceLocation)
    let ready = try queue.readyJobs(at: clock.now()).map(\.id)
    try closeChecked(queue)
    var current = try JobQueue(directory: directory, configuration: semanticsConfiguration(clock))
    for round in 0..<2 {
        if round == 1 {
            _ = try current.compact()
            try closeChecked(current)
            current = try JobQueue(directory: directory, configuration: semanticsConfiguration(clock))
        }
        try current.updateDeviceConditions(conditions)
        let replayed = current.engine.stateSnapshot
        checkInvariants(replayed, sourceLocation: sourceLocation)
        #expect(try current.jobs() == jobs, "round \(round)", sourceLocation: sourceLocation)
        #expect(
            replayed.dependents.mapValues(Set.init) == state.dependents.mapValues(Set.init),
            sourceLocation: sourceLocation)
        #expect(
            replayed.uniqueKeys == state.uniqueKeys && replayed.earlierKeyCarriers == state.earlierKeyCarriers,
            sourceLocation: sourceLocation)
        #expect(try current.readyJobs(at: clock.now()).map(\.id) == ready, sourceLocation: sourceLocation)
    }
    return current
}

/// The bodies of the queue's records with the sequence of their file, in log order
/// (read straight from the files, also while the queue is open).
func recordBodies(_ directory: String) throws -> [(fileSequence: UInt64, body: [UInt8])] {
    var bodies: [(fileSequence: UInt64, body: [UInt8])] = []
    for file in try LogReplay.logFiles(in: directory, fileSystem: POSIXFileSystem()) {
        let bytes = try readFile(file.path)
        var offset = LogFormat.fileHeaderSize
        while offset + LogFormat.frameHeaderSize < bytes.count {
            let length =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(
                    bytes[offset + 7]) << 24
            let start = offset + LogFormat.frameHeaderSize
            guard length > 0, start + length <= bytes.count else { break }
            bodies.append((file.sequence, Array(bytes[start..<(start + length)])))
            offset = start + length
        }
    }
    return bodies
}

/// The body versions of the queue's records, in log order.
func bodyVersions(_ directory: String) throws -> [UInt8] {
    try recordBodies(directory).map { $0.body[0] }
}

/// The operation names of the queue's records, in log order (read while the queue is open).
func recordOperationNames(_ directory: String) throws -> [[String]] {
    try recordBodies(directory).map { record in
        try record.body.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: record.fileSequence, bodyOffset: 0)
        }
        .map { LogOperationSummary($0).name }
    }
}
