import Foundation
import Spool
import SpoolApp

/// The events of a `BackgroundWork`, read as a test waits: each wait checks its condition, then again
/// after each event, so a test synchronises on what the product reports, never on time.
struct EventReader {
    private var iterator: AsyncStream<BackgroundWorkEvent>.Iterator
    /// Every event read so far.
    private(set) var seen: [BackgroundWorkEvent] = []

    /// Reads the events `work` reports from now on.
    init(_ work: BackgroundWork) { iterator = work.events().makeAsyncIterator() }

    /// Returns once `condition` holds (checked first, then after each event), or once the stream ends.
    mutating func until(_ condition: () throws -> Bool) async rethrows {
        while try !condition() {
            guard let event = await iterator.next() else { return }
            seen.append(event)
        }
    }

    /// Returns once `count` events matching `matches` were read.
    mutating func until(_ count: Int = 1, seenWhere matches: (BackgroundWorkEvent) -> Bool) async {
        while seen.filter(matches).count < count {
            guard let next = await iterator.next() else { return }
            seen.append(next)
        }
    }

    /// Returns once `event` was read.
    mutating func until(seen event: BackgroundWorkEvent) async {
        while !seen.contains(event) {
            guard let next = await iterator.next() else { return }
            seen.append(next)
        }
    }
}

/// A `BackgroundWork` over a queue in `folder`, on the fakes given.
struct Setup {
    let queue: JobQueue
    let runner: JobRunner
    let runnerEvents: RunnerEvents
    let work: BackgroundWork

    init(
        _ folder: AppFolder, scheduler: FakeScheduler, transfers: FakeTransferSystem? = nil,
        network: FakePathMonitor? = nil, power: FakePowerMonitor? = nil, sink: RecordingSink? = nil,
        logging: EventLogging = .failures, bufferLimit: Int = 256, sharing: ProcessSharing = .exclusive,
        register: (JobRunner, @escaping @Sendable () -> BackgroundWork?) throws -> Void = { _, _ in }
    ) throws {
        queue = try folder.open(sharing: sharing)
        runnerEvents = RunnerEvents()
        runner = try JobRunner(queue: queue, events: runnerEvents)
        let box = WorkBox()
        try register(runner, { box.work })
        var sessions: (@Sendable (String, TransferCompletions) -> any TransferSession)?
        if let transfers {
            sessions = { identifier, completions in transfers.make(identifier, completions) }
        }
        let options = BackgroundWork.Options(
            launches: identifiers, transferSession: transfers == nil ? nil : "app.transfers", logging: logging,
            eventBufferLimit: bufferLimit)
        let system = BackgroundWork.System(
            scheduler: scheduler, transferSessions: sessions, network: network, power: power, log: sink)
        work = try BackgroundWork(queue: queue, runner: runner, options: options, system: system)
        box.work = work
    }

    func close() async throws {
        await work.close()
        try queue.close()
    }
}

/// Lets a handler registered before the `BackgroundWork` exists reach it.
final class WorkBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: BackgroundWork?
    var work: BackgroundWork? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
