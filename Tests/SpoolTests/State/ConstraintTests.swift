import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Constraints: a job never starts while the device conditions do not satisfy them.
@Suite(.blocking) struct ConstraintTests {
    static let network = JobConstraints(requiresNetwork: true)

    @Test func conditionsSatisfyExactlyWhatTheyCover() {
        let unmetered = JobConstraints(requiresUnmeteredNetwork: true)
        #expect(DeviceConditions.unknown.satisfies(.none))
        #expect(!DeviceConditions.unknown.satisfies(Self.network))
        #expect(!DeviceConditions.unknown.satisfies(JobConstraints(requiresBatteryNotLow: true)))
        #expect(DeviceConditions(isNetworkAvailable: true).satisfies(Self.network))
        #expect(!DeviceConditions(isNetworkAvailable: true).satisfies(unmetered))
        #expect(!DeviceConditions(isNetworkUnmetered: true).satisfies(unmetered), "unmetered without a network")
        #expect(DeviceConditions(isNetworkAvailable: true, isNetworkUnmetered: true).satisfies(unmetered))
        let named = JobConstraints(requiresCharging: true, requiredConditions: ["signed-in", "wifi-sync-on"])
        #expect(!DeviceConditions(isCharging: true, satisfiedConditions: ["signed-in"]).satisfies(named))
        #expect(
            DeviceConditions(isCharging: true, satisfiedConditions: ["signed-in", "wifi-sync-on", "x"]).satisfies(named)
        )
        #expect(!DeviceConditions(satisfiedConditions: ["signed-in", "wifi-sync-on"]).satisfies(named))
    }

    @Test func anOverdueJobWaitsForItsConstraintsAndAnUnconstrainedOneRuns() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        #expect(queue.deviceConditions == .unknown)
        let start = clock.now()
        try queue.enqueue(NewJob(kind: "upload", id: "net", priority: 10, constraints: Self.network))
        try queue.enqueue(NewJob(kind: "upload", id: "plain", delay: 30))
        clock.advance(by: 3600)
        // Higher priority and overdue by an hour, but no network is known: the plain job goes first.
        #expect(try queue.claim()?.job.id == "plain")
        #expect(try queue.claim() == nil)
        #expect(try queue.readyJobs(at: clock.now()).isEmpty)
        #expect(try queue.nextDeadline() == nil, "nothing a claim could take")
        #expect(try queue.nextDeadline(constraints: Self.network) == start)
        #expect(try queue.nextDeadline(kind: "other", constraints: Self.network) == nil)
        #expect(try queue.nextDeadlines() == [Self.network: start])
        #expect(try queue.job("net")?.constraints == Self.network)

        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true))
        #expect(try queue.nextDeadline() == start)
        #expect(try queue.claim()?.job.id == "net")
        try closeChecked(queue)
    }

    @Test func conditionsGoingAwayStopFurtherClaimsOnly() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let named = JobConstraints(requiredConditions: ["signed-in"])
        try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "a", constraints: named), NewJob(kind: "k", id: "b", constraints: named),
        ])
        try queue.updateDeviceConditions(DeviceConditions(satisfiedConditions: ["signed-in"]))
        let lease = try #require(try queue.claim(kind: "k"))
        try queue.updateDeviceConditions(.unknown)
        #expect(try queue.claim(kind: "k") == nil)
        try queue.complete(lease)
        #expect(try queue.job("b")?.state == .enqueued)
        try closeChecked(queue)
    }

    @Test func reportingConditionsWakesSubscribersAndSameConditionsDoNot() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(ManualClock()))
        let subscription = queue.engine.changes.subscribe()
        try queue.updateDeviceConditions(DeviceConditions(isCharging: true))
        #expect(subscription.poll()?.environmentChanged == true)
        try queue.updateDeviceConditions(DeviceConditions(isCharging: true))
        #expect(subscription.poll() == ChangeFeed.Changes())
        try closeChecked(queue)
    }

    @Test func constraintsAreDurableThroughReopenAndCompactionInBodyVersion3() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try queue.enqueue(NewJob(kind: "k", id: "plain"))
        let all = JobConstraints(
            requiresNetwork: true, requiresUnmeteredNetwork: true, requiresCharging: true,
            requiresDeviceIdle: true, requiresBatteryNotLow: true, requiredConditions: ["b", "a"])
        try queue.enqueue(NewJob(kind: "k", id: "picky", constraints: all))
        #expect(try bodyVersions(temp.queue) == [1, 3], "a plain enqueue stays version 1")
        try queue.updateDeviceConditions(
            DeviceConditions(
                isNetworkAvailable: true, isNetworkUnmetered: true, isCharging: true,
                isDeviceIdle: true, isBatteryNotLow: true, satisfiedConditions: ["a"]))
        queue = try reopenedTwice(queue, clock: clock)
        #expect(try queue.job("picky")?.constraints == all)
        #expect(try queue.claim()?.job.id == "plain")
        #expect(try queue.claim() == nil, "condition b is missing")
        try closeChecked(queue)
    }

    @Test func invalidConditionNamesAreRefused() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(ManualClock()))
        expectError(.invalidArgument) {
            try queue.enqueue(NewJob(kind: "k", constraints: JobConstraints(requiredConditions: [""])))
        }
        try closeChecked(queue)
    }
}

/// The body version 3 operations, byte for byte and round trip.
@Suite(.blocking) struct OptionsFormatTests {
    /// FORMAT.md's two examples of opcode 14, byte for byte: a job with constraints and a
    /// prerequisite, and a periodic one (a periodic job may not have prerequisites).
    @Test func enqueueWithOptionsBytes() throws {
        let periodic = NewEnqueue(
            id: "j", kind: "k", payload: Data(), priority: 0, createdAt: 0, runAt: 0, maxAttempts: 1,
            uniqueKey: nil, options: EnqueueOptions(periodic: (900_000, 0)))
        #expect(
            TransactionCodec.encode([.enqueue(periodic)])
                == [
                    0x03, 0x01, 0x0e, 0x01, 0x6a, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0xa0,
                    0xf7, 0x36,
                    0x00, 0x00,
                ])
        let job = NewEnqueue(
            id: "j", kind: "k", payload: Data(), priority: 0, createdAt: 0, runAt: 0, maxAttempts: 1,
            uniqueKey: nil,
            options: EnqueueOptions(
                constraints: JobConstraints(requiresNetwork: true, requiredConditions: ["a"]),
                dependencies: ["x"]))
        let body = TransactionCodec.encode([.enqueue(job)])
        #expect(
            body == [
                0x03, 0x01, 0x0e, 0x01, 0x6a, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x01, 0x01, 0x01, 0x61,
                0x01, 0x01, 0x78, 0x00, 0x00,
            ])
        let decoded = try body.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        guard case .enqueue(let op) = decoded.first else {
            Issue.record("not an enqueue")
            return
        }
        #expect(op.options == job.job.options)
        // The same body claiming version 2 is malformed, not newer.
        var old = body
        old[0] = 2
        #expect(throws: TransactionCodec.Failure.self) {
            try old.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
        // A version 4 body may hold it too (a record is written in the lowest version, read in any later one).
        var later = body
        later[0] = 4
        #expect(
            try later.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) } == decoded)
        var newer = body
        newer[0] = TransactionCodec.bodyVersion + 1
        #expect(throws: TransactionCodec.Failure.newerBodyVersion(TransactionCodec.bodyVersion + 1)) {
            try newer.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
    }

    @Test func everyVersion3OperationRoundTripsInTheLowestVersion() throws {
        var job = StoredJob(
            id: "r", kind: "k", state: .cancelled, attempts: 1, maxAttempts: 3, priority: -2, sequence: 9,
            createdAt: 5, runAt: 6, nextRetryAt: nil, finishedAt: 8, uniqueKey: "u", lastError: "e",
            payload: PayloadLocation(fileSequence: 1, offset: 0, length: 2, checksum: 0), lease: nil)
        let plain = job
        job.constraints = JobConstraints(
            requiresCharging: true, requiresBatteryNotLow: true, requiredConditions: ["z", "é"])
        job.waitingFor = ["p", "q"]
        job.periodic = StoredPeriodic(interval: 900_000, flex: 300_000, anchor: -7, occurrence: 12)
        #expect(TransactionCodec.version(for: [PlannedOperation(.restore(plain))]) == 2)
        #expect(TransactionCodec.version(for: [PlannedOperation(.restore(job))]) == 3)
        #expect(TransactionCodec.version(for: [PlannedOperation(.cancel(id: "a", at: 1))]) == 1)
        #expect(
            TransactionCodec.version(for: [
                PlannedOperation(.complete(id: "a", token: 1, at: 1)),
                PlannedOperation(.nextOccurrence(id: "a", at: 1, runAt: 2)),
            ]) == 3)
        var writer = ByteWriter()
        writer.writeUInt8(3)
        writer.writeVarint(2)
        let range = SnapshotCodec.encodeRestore(job, payload: [1, 2], into: &writer)
        writer.writeRaw(
            TransactionCodec.encode([PlannedOperation(.nextOccurrence(id: "r", at: -1, runAt: 99))]).dropFirst(2))
        let decoded = try writer.bytes.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0)
        }
        var expected = job
        expected.payload = PayloadLocation(
            fileSequence: 1, offset: Int64(range.lowerBound), length: 2,
            checksum: CRC32C.checksum([1, 2]))
        #expect(decoded == [.restore(expected), .nextOccurrence(id: "r", at: -1, runAt: 99)])
    }
}
