import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import Testing

/// The events of a `BackgroundWork`, read as a test waits: each wait checks its condition, then again
/// after each event, so a test synchronises on what the product reports, never on time.
struct EventReader {
    private var iterator: AsyncStream<BackgroundWorkEvent>.Iterator
    /// Every event read so far.
    private(set) var seen: [BackgroundWorkEvent] = []

    /// Reads the events `work` reports from now on.
    init(_ work: BackgroundWork) { iterator = work.events().makeAsyncIterator() }

    /// Returns once `condition` holds (checked first, then after each event), or once the stream ends
    /// (the test's time limit cancelled it): an issue then, naming the events seen.
    mutating func until(
        _ condition: () throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async rethrows {
        try await read(until: { _ in try condition() }, sourceLocation: sourceLocation)
    }

    /// Returns once `count` events matching `matches` were read.
    mutating func until(
        _ count: Int = 1, seenWhere matches: @escaping (BackgroundWorkEvent) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await read(until: { $0.filter(matches).count >= count }, sourceLocation: sourceLocation)
    }

    /// Returns once `event` was read.
    mutating func until(seen event: BackgroundWorkEvent, sourceLocation: SourceLocation = #_sourceLocation) async {
        await read(until: { $0.contains(event) }, sourceLocation: sourceLocation)
    }

    private mutating func read(
        until condition: ([BackgroundWorkEvent]) throws -> Bool, sourceLocation: SourceLocation
    ) async rethrows {
        while try !condition(seen) {
            guard let event = await iterator.next() else {
                Issue.record(
                    "the events ended before the condition held; seen: \(seen)", sourceLocation: sourceLocation)
                return
            }
            seen.append(event)
        }
    }
}

/// A `BackgroundWork` set up on the fakes given, then attached to a queue in `folder`, as an app does: the
/// launch identifiers registered first, the queue opened and its handlers registered (`register`, which may
/// reach the work), then attached.
struct Setup {
    let queue: JobQueue
    let runner: JobRunner
    let runnerEvents: RunnerEvents
    let work: BackgroundWork
    /// The fakes whose violations (what iOS kills an app for) `close()` checks.
    let scheduler: TestScheduler
    let backgroundTime: TestBackgroundTime?

    init(
        _ folder: AppFolder, scheduler: TestScheduler, transfers: TestTransferSystem? = nil,
        network: TestPathMonitor? = nil, power: TestPowerMonitor? = nil, sink: TestEventSink? = nil,
        logging: EventLogging = .failures, bufferLimit: Int = 256, sharing: ProcessSharing = .exclusive,
        lifecycle: TestLifecycle? = nil, backgroundTime: TestBackgroundTime? = nil,
        register: (JobRunner, @escaping @Sendable () -> BackgroundWork?) throws -> Void = { _, _ in }
    ) throws {
        var sessions: (@Sendable (String, TransferCompletions) -> any TransferSession)?
        if let transfers {
            sessions = { identifier, completions in transfers.makeSession(identifier, completions) }
        }
        let options = BackgroundWork.Options(
            launches: identifiers, transferSession: transfers == nil ? nil : "app.transfers", logging: logging,
            eventBufferLimit: bufferLimit)
        let system = BackgroundWork.System(
            scheduler: scheduler, transferSessions: sessions, network: network, power: power, log: sink,
            lifecycle: lifecycle, backgroundTime: backgroundTime)
        let work = try BackgroundWork(options: options, system: system)
        queue = try folder.open(sharing: sharing)
        runnerEvents = RunnerEvents()
        runner = try JobRunner(queue: queue, events: runnerEvents)
        try register(runner, { work })
        try work.attach(queue: queue, runner: runner)
        self.work = work
        self.scheduler = scheduler
        self.backgroundTime = backgroundTime
    }

    /// Closes the work and the queue; what iOS would have killed the app for is an issue of the test.
    func close(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await work.close()
        try queue.close()
        let violations = scheduler.violations + (backgroundTime?.violations ?? [])
        #expect(violations.isEmpty, "\(violations)", sourceLocation: sourceLocation)
    }
}
