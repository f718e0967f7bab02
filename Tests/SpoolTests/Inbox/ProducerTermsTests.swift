import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// What a producer's enqueue asks of the owner besides the job (FORMAT.md, *Producer inbox files*, body
/// version 12): the owner's attempt budget for a job that names none, a job that arrives parked, a queue the
/// producer records into before any owner created it.
@Suite(.blocking) struct ProducerTermsTests {
    /// A configuration on `disk` whose retry policy gives `attempts` attempts by default.
    static func configuration(_ disk: SimulatedDisk, attempts: Int, clock: ManualClock) -> Configuration {
        var configuration = ProducerIngestionTests.configuration(disk)
        configuration.clock = clock
        configuration.retryPolicy = .table([1], maxAttempts: attempts)
        return configuration
    }

    /// The budget an app gives its queue is the one its extension's jobs get, whatever the extension's
    /// configuration says; a job's own budget is kept.
    @Test(.onThePool) func aJobWithoutABudgetGetsTheOwnersAtIngestion() async throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        let owner = Self.configuration(disk, attempts: 4, clock: clock)
        try ProducerIngestionTests.makeQueue(disk)
        let producer = try QueueProducer(
            directory: ProducerIngestionTests.directory,
            configuration: Self.configuration(disk, attempts: 5, clock: clock))
        let plain = try await producer.enqueue(NewJob(kind: "upload"))
        let own = try await producer.enqueue(NewJob(kind: "upload", maxAttempts: 7))
        let typed = try await producer.enqueue(UploadPhoto(path: "/p", size: 1), uniqueKey: "photo:1")
        let queue = try JobQueue(directory: ProducerIngestionTests.directory, configuration: owner)
        #expect(try queue.job(plain)?.maxAttempts == 4)
        #expect(try queue.job(own)?.maxAttempts == 7)
        let job = try #require(try queue.job(typed))
        #expect(job.maxAttempts == 4 && job.kind == UploadPhoto.kind && job.uniqueKey == "photo:1")
        #expect(try UploadPhoto.decode(queue.payload(of: typed)) == UploadPhoto(path: "/p", size: 1))
        try closeChecked(queue)
    }

    /// A share extension used before its app ever ran: the producer makes the directory, and the app's
    /// first open creates the log and finds the job — after a power loss right after the call, too.
    @Test func aProducerUsedBeforeTheQueueExistsRecordsAndTheFirstOpenIngests() throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        try disk.createDirectory(at: "/group")
        let directory = "/group/Library/jobs"
        let producer = try QueueProducer(
            directory: directory, configuration: Self.configuration(disk, attempts: 3, clock: clock))
        let id = try producer.enqueue(NewJob(kind: "upload", payload: Data("photo".utf8)))
        let image = disk.crashImage()
        let queue = try JobQueue(
            directory: directory, configuration: Self.configuration(image, attempts: 3, clock: clock))
        #expect(try queue.job(id)?.state == .enqueued)
        #expect(try queue.payload(of: id) == Data("photo".utf8))
        try closeChecked(queue)
    }

    @Test func aProducerRefusesWhatIsNotAQueueAndAMissingOneWithoutCreateIfMissing() throws {
        let disk = SimulatedDisk()
        var configuration = Self.configuration(disk, attempts: 3, clock: ManualClock())
        configuration.createIfMissing = false
        expectError(.queueNotFound) { _ = try QueueProducer(directory: "/missing", configuration: configuration) }
        #expect(try disk.entryKind(at: "/missing") == nil)
        try disk.createDirectory(at: "/documents")
        try disk.openFile(at: "/documents/notes.txt", mode: .createNew).close()
        configuration.createIfMissing = true
        expectError(.notAQueue) { _ = try QueueProducer(directory: "/documents", configuration: configuration) }
        #expect(try disk.entryKind(at: "/documents/inbox") == nil)
    }

    /// An extension starts a transfer and records its job parked under the transfer's key: the app's
    /// delegate completes it by key, counted once, with no handler run.
    @Test func aJobArrivesParkedAndTheOwnerCompletesItByKey() throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        try ProducerIngestionTests.makeQueue(disk)
        let configuration = Self.configuration(disk, attempts: 3, clock: clock)
        let producer = try QueueProducer(directory: ProducerIngestionTests.directory, configuration: configuration)
        let id = try producer.enqueue(NewJob(kind: "upload", tags: ["photos"]), parkedUnder: "upload:1", for: 3600)
        let queue = try JobQueue(directory: ProducerIngestionTests.directory, configuration: configuration)
        let parked = try #require(try queue.job(id))
        #expect(parked.state == .running && parked.attempts == 1 && parked.parkedKey == "upload:1")
        #expect(parked.parkDeadline == clock.now().addingTimeInterval(3600) && parked.tags == ["photos"])
        #expect(try queue.claim() == nil)
        let done = try queue.completeParked(key: "upload:1")
        #expect(done.id == id && done.state == .succeeded && done.attempts == 1)
        try closeChecked(queue)
    }

    /// A completion that reaches the owner before it ingested the parked job is refused, writing nothing;
    /// once ingested (`ingestInbox()` first, as the recipe does), the same completion succeeds.
    @Test func aCompletionBeforeTheIngestionIsRefusedUntilTheOwnerIngests() throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        try ProducerIngestionTests.makeQueue(disk)
        let configuration = Self.configuration(disk, attempts: 3, clock: clock)
        let queue = try JobQueue(directory: ProducerIngestionTests.directory, configuration: configuration)
        let producer = try QueueProducer(directory: ProducerIngestionTests.directory, configuration: configuration)
        let id = try producer.enqueue(NewJob(kind: "upload"), parkedUnder: "upload:2", for: 3600)
        let before = queue.engine.writer.lastAppendedLSN
        expectError(.jobNotFound) { _ = try queue.completeParked(key: "upload:2") }
        #expect(queue.engine.writer.lastAppendedLSN == before)
        clock.advance(by: 1)
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.completeParked(key: "upload:2").id == id)
        try closeChecked(queue)
    }

    /// A parked job whose deadline passed before the owner ingested it goes back by the retry policy in the
    /// same record (its attempt spent, as any expired park's), and a late completion for its key is refused.
    @Test func aParkedArrivalPastItsDeadlineGoesBackByTheRetryPolicyAtOnce() throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        try ProducerIngestionTests.makeQueue(disk)
        let configuration = Self.configuration(disk, attempts: 3, clock: clock)
        let queue = try JobQueue(directory: ProducerIngestionTests.directory, configuration: configuration)
        let producer = try QueueProducer(directory: ProducerIngestionTests.directory, configuration: configuration)
        let id = try producer.enqueue(NewJob(kind: "upload"), parkedUnder: "upload:late", for: 60)
        clock.advance(by: 61)
        let before = queue.engine.writer.lastAppendedLSN
        #expect(try queue.ingestInbox() == 1)
        #expect(queue.engine.writer.lastAppendedLSN == before + 1, "one record")
        let job = try #require(try queue.job(id))
        #expect(job.state == .enqueued && job.attempts == 1 && job.parkedKey == nil)
        #expect(job.lastError == QueueEngine.parkDeadlineReason && job.lastStopReason == .leaseExpired)
        #expect(job.nextRetryAt != nil)
        expectError(.jobNotFound) { _ = try queue.completeParked(key: "upload:late") }
        try closeChecked(queue)
    }

    /// Where the rules refuse the park (the key taken) or the claim (the kind paused), the job is enqueued
    /// as any producer's job: it runs by its handler, never lost.
    @Test func aParkedArrivalTheRulesRefuseIsEnqueuedAlone() throws {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        try ProducerIngestionTests.makeQueue(disk)
        let configuration = Self.configuration(disk, attempts: 3, clock: clock)
        let queue = try JobQueue(directory: ProducerIngestionTests.directory, configuration: configuration)
        try queue.enqueue(NewJob(kind: "upload", id: "holder"))
        try queue.park(try #require(try queue.claim()), key: "taken", for: 3600)
        try queue.pause(kind: "paused")
        let producer = try QueueProducer(directory: ProducerIngestionTests.directory, configuration: configuration)
        let keyTaken = try producer.enqueue(NewJob(kind: "upload"), parkedUnder: "taken", for: 60)
        let kindPaused = try producer.enqueue(NewJob(kind: "paused"), parkedUnder: "free", for: 60)
        clock.advance(by: 1)
        #expect(try queue.ingestInbox() == 2)
        for id in [keyTaken, kindPaused] {
            let job = try #require(try queue.job(id))
            #expect(job.state == .enqueued && job.attempts == 0 && job.parkedKey == nil)
        }
        #expect(try queue.parkedJobs().map(\.id) == ["holder"])
        try closeChecked(queue)
    }

    @Test func aParkedArrivalRefusesPrerequisitesARepeatAndADeadlineNotAfterNow() throws {
        let disk = SimulatedDisk()
        try ProducerIngestionTests.makeQueue(disk)
        let configuration = Self.configuration(disk, attempts: 3, clock: ManualClock())
        let producer = try QueueProducer(directory: ProducerIngestionTests.directory, configuration: configuration)
        expectError(.invalidArgument) {
            _ = try producer.enqueue(NewJob(kind: "upload", dependencies: ["a"]), parkedUnder: "k", for: 60)
        }
        expectError(.invalidArgument) {
            _ = try producer.enqueue(
                NewJob(kind: "upload", periodic: PeriodicSchedule(interval: 3600)), parkedUnder: "k", for: 60)
        }
        expectError(.invalidArgument) { _ = try producer.enqueue(NewJob(kind: "upload"), parkedUnder: "k", for: 0) }
        expectError(.invalidArgument) { _ = try producer.enqueue(NewJob(kind: "upload"), parkedUnder: "", for: 60) }
        #expect(try ProducerIngestionTests.inboxFiles(disk).isEmpty)
    }

    /// Inspection shows what a producer's job asks of the owner before it is ingested.
    @Test func inspectionShowsTheTermsOfAJobAwaitingIngestion() throws {
        let temporary = TemporaryDirectory("terms")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        try JobQueue(directory: temporary.queue, configuration: configuration).close()
        configuration.retryPolicy = .table([1], maxAttempts: 9)
        let producer = try QueueProducer(directory: temporary.queue, configuration: configuration)
        try producer.enqueue(NewJob(kind: "upload", id: "a"), parkedUnder: "upload:a", for: 60)
        try producer.enqueue(NewJob(kind: "upload", id: "b", maxAttempts: 2))
        let awaiting = try LogInspector.withJobs(directory: temporary.queue) { try $0.awaitingIngestion() }
        #expect(awaiting.map(\.id) == ["a", "b"])
        #expect(awaiting.map(\.maxAttempts) == [nil, 2])
        #expect(awaiting.map(\.parkedKey) == ["upload:a", nil])
        #expect(awaiting[0].parkDeadline == clock.now().addingTimeInterval(60))
    }
}
