import Foundation
import Testing

@testable import Spool

/// One operation of a simulated workload.
enum WorkloadOp: CustomStringConvertible, Sendable {
    case enqueue(id: String, priority: Int, delay: Int64, maxAttempts: Int?, key: String?, policy: UniquePolicy)
    /// An enqueue of kind "m" using the body version 3 fields: a prerequisite (an earlier job, picked),
    /// a network constraint, a periodic schedule; with policy append among the policies.
    case enqueueWithOptions(
        id: String, dependencyPick: Int?, network: Bool, periodic: Bool, key: String?, policy: UniquePolicy)
    /// The app reports whether a network is available (memory only: reported again after each open).
    case setNetwork(Bool)
    case cancelKind(String)
    case cancelKey(String)
    /// A cancel of the unfinished jobs carrying a tag, with the cascade (QueueModel+Results.swift).
    case cancelTag(String)
    case claim
    case complete(pick: Int)
    case fail(pick: Int, terminal: Bool)
    /// The runner's handover: the end of a held attempt (success, or a failure when `terminal` is
    /// not nil) and the claim of the next due job, in one record.
    case handOver(pick: Int, terminal: Bool?)
    case cancel(pick: Int)
    case retry(pick: Int)
    case reschedule(pick: Int, delay: Int64)
    case delete(pick: Int)
    case advance(Int64)
    case reopen
    /// Compaction: the model does not change (the retention is longer than any run).
    case compact
    /// Close, register the next job migration, open: the open applies it.
    case migrate
    /// A held attempt given back after an interruption (see SimulationRun+Stops.swift).
    case release(pick: Int, reason: StopReason)
    /// A held attempt snoozed for `delay` ms.
    case snooze(pick: Int, delay: Int64, attempt: SnoozeAttempt)
    /// Parking and checkpoints (SimulationRun+Parking.swift).
    case parking(ParkingOp)
    /// Kind controls (SimulationRun+KindControls.swift): pause, resume, set or remove a rate limit.
    case kindControl(KindControlOp)
    /// A producer's enqueue or cancel into the inbox (SimulationRun+Producers.swift).
    case produce(ProduceOp)
    /// The owner's ``JobQueue/ingestInbox()``.
    case ingest

    /// The feature whose changes the crash fuzzer counts for this operation, or `nil` for the core ones.
    var feature: String? {
        switch self {
        case .release: return "releases"
        case .snooze: return "snoozes"
        case .parking(.park): return "parks"
        case .parking(.checkpoint): return "checkpoints"
        case .parking(.completeParked): return "parked completions"
        case .parking(.failParked): return "parked failures"
        case .parking(.reconcile): return "reconciles"
        case .kindControl: return "kind controls"
        case .produce(.enqueue): return "producer enqueues"
        case .produce(.cancel): return "producer cancels"
        case .produce(.cancelTagged): return "producer tag cancels"
        case .ingest: return "ingestions"
        case .cancelTag: return "tag cancels"
        case .enqueue(let id, _, _, _, _, _), .enqueueWithOptions(let id, _, _, _, _, _):
            return QueueModel.tags(of: id).isEmpty ? nil : "tagged enqueues"
        case .complete(let pick), .handOver(let pick, nil):
            return QueueModel.result(of: pick) == nil ? nil : "results"
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .enqueue(let id, let priority, let delay, let max, let key, let policy):
            return
                "enqueue \(id) p\(priority) +\(delay)ms max \(max.map(String.init) ?? "-") key \(key ?? "-") \(policy)"
        case .enqueueWithOptions(let id, let pick, let network, let periodic, let key, let policy):
            return
                "enqueue \(id) m after #\(pick.map(String.init) ?? "-")\(network ? " network" : "")\(periodic ? " periodic" : "") key \(key ?? "-") \(policy)"
        case .setNetwork(let available): return "network \(available ? "on" : "off")"
        case .cancelKind(let kind): return "cancel kind \(kind)"
        case .cancelKey(let key): return "cancel key \(key)"
        case .cancelTag(let tag): return "cancel tag \(tag)"
        case .claim: return "claim"
        case .complete(let pick): return "complete #\(pick)"
        case .fail(let pick, let terminal): return "fail #\(pick)\(terminal ? " terminal" : "")"
        case .handOver(let pick, let terminal):
            return "hand over #\(pick) (\(terminal.map { $0 ? "fail terminal" : "fail" } ?? "complete")) + claim"
        case .cancel(let pick): return "cancel #\(pick)"
        case .retry(let pick): return "retry #\(pick)"
        case .reschedule(let pick, let delay): return "reschedule #\(pick) +\(delay)ms"
        case .delete(let pick): return "delete #\(pick)"
        case .advance(let ms): return "advance \(ms)ms"
        case .reopen: return "reopen"
        case .compact: return "compact"
        case .migrate: return "migrate"
        case .release(let pick, let reason): return "release #\(pick) (\(reason))"
        case .snooze(let pick, let delay, let attempt): return "snooze #\(pick) +\(delay)ms \(attempt)"
        case .parking(let op): return "\(op)"
        case .kindControl(let control): return control.description
        case .produce(let op): return op.description
        case .ingest: return "ingest"
        }
    }

    /// A seeded random workload of `count` operations.
    static func random(count: Int, using generator: inout SeededGenerator, firstID: Int = 0) -> [WorkloadOp] {
        var ops: [WorkloadOp] = []
        var nextID = firstID
        for _ in 0..<count {
            let roll = Int.random(in: 0..<118, using: &generator)
            let pick = Int.random(in: 0..<1000, using: &generator)
            switch roll {
            case 0..<30:
                let key: String? = Int.random(in: 0..<3, using: &generator) == 0 ? "key-\(pick % 3)" : nil
                ops.append(
                    .enqueue(
                        id: "j\(nextID)", priority: pick % 3 - 1, delay: Int64(pick % 4) * 500,
                        maxAttempts: pick % 5 == 0 ? 1 : nil, key: key,
                        policy: pick % 2 == 0 ? .keep : .replace))
                nextID += 1
            case 30..<36:
                let key: String? = pick % 3 == 0 ? "key-\(pick % 2)" : nil
                let policies: [UniquePolicy] = [.append, .keep, .replace, .append]
                ops.append(
                    .enqueueWithOptions(
                        id: "j\(nextID)", dependencyPick: pick % 2 == 0 ? pick / 2 : nil,
                        network: pick % 5 < 2, periodic: pick % 7 == 0, key: key,
                        policy: policies[(pick / 7) % policies.count]))
                nextID += 1
            case 36..<38: ops.append(.setNetwork(pick % 3 != 0))
            case 38..<39:
                if pick % 2 == 0 {
                    ops.append(.cancelKind(pick % 4 == 0 ? "k" : "m"))
                } else {
                    ops.append(pick % 3 == 0 ? .cancelTag(pick % 4 == 1 ? "t0" : "t1") : .cancelKey("key-\(pick % 3)"))
                }
            case 39..<48: ops.append(.claim)
            case 48..<54: ops.append(.complete(pick: pick))
            case 54..<60: ops.append(.handOver(pick: pick, terminal: nil))
            case 60..<68: ops.append(stopOp(pick: pick) ?? .fail(pick: pick, terminal: pick % 4 == 0))
            case 68..<72: ops.append(.handOver(pick: pick, terminal: pick % 4 == 0))
            case 72..<77: ops.append(.cancel(pick: pick))
            case 77..<82: ops.append(.retry(pick: pick))
            case 82..<85: ops.append(.reschedule(pick: pick, delay: Int64(pick % 3) * 1000))
            case 85..<87: ops.append(.delete(pick: pick))
            case 87..<95: ops.append(.advance(Int64(1 + pick % 4) * 500))
            case 95..<97: ops.append(.compact)
            case 97: ops.append(.migrate)
            case 98..<100: ops.append(.reopen)
            case 100..<110: ops.append(.parking(ParkingOp.random(roll: roll - 100, pick: pick)))
            default: ops.append(ProduceOp.random(roll: roll - 110, pick: pick, nextID: &nextID))
            }
            if let control = KindControlOp.random(using: &generator) { ops.append(.kindControl(control)) }
        }
        return ops
    }
}

/// A workload running against a queue on a ``SimulatedDisk`` and against the
/// ``QueueModel`` side by side, able to crash the disk and check the recovery.
final class SimulationRun {
    static let directory = "/queue"
    private(set) var disk: SimulatedDisk
    let clock: ManualClock
    private(set) var queue: JobQueue?
    private(set) var model = QueueModel()
    /// The leases this run holds, by job id.
    var leases: [String: Lease] = [:]
    /// Every id enqueued so far, for picking targets.
    private var ids: [String] = []
    /// What went wrong; empty while model and queue agree.
    private(set) var violations: [String] = []
    /// Crash states recovered and checked.
    private(set) var statesChecked = 0
    /// The log's log file size: small, so that workloads roll over to new files often and crashes hit roll-overs.
    var logFileSize: Int64 = 400
    /// Compactions that completed.
    private(set) var compactions = 0
    /// Acknowledged operations that exercised the body version 3 semantics: jobs enqueued blocked or
    /// cancelled at birth, cascades (an operation that cancelled more jobs than it named), next occurrences.
    private(set) var blockedEnqueues = 0, cascades = 0, occurrences = 0
    /// Acknowledged changes made by each feature's operations (``WorkloadOp/feature``): parks, checkpoints,
    /// stops, kind controls.
    private(set) var featureChanges: [String: Int] = [:]
    /// Acknowledged handovers, and those whose record also claimed a job.
    private(set) var handovers = 0, handoverClaims = 0
    /// The sync the log makes (``Durability``); with `.ordered` a power loss may drop the last
    /// acknowledged changes, in order.
    var durability: Durability = .full
    /// The states acknowledged since the disk last held nothing an ordered sync acknowledged
    /// without making it durable, oldest first (with `.full`, the current one only): a power loss
    /// may bring back any of them, never anything else.
    /// Each with the number of job migrations registered when it was acknowledged: a recovery that
    /// goes back to it applies the later ones again at open.
    private(set) var acknowledged: [(model: QueueModel, migrations: Int)] = [(QueueModel(), 0)]
    /// The jobs each registered migration may not split (its closure keeps the set it was made with).
    private var migrationUnsplittable: [Set<String>] = []
    /// Recoveries that came back to an earlier acknowledged state (allowed with `.ordered`), and
    /// how many acknowledged states they went back in all.
    private(set) var orderedLosses = 0, lostStates = 0
    /// Set while an injected fault may fail the next operation.
    var faultInjected = false
    /// The error the last operation threw, for reports.
    private(set) var lastError: (any Error)?
    /// The job migrations registered so far (each `.migrate` adds one). A run that replays another's
    /// crash starts with none, as a tool that does not interpret jobs would.
    private(set) var migrations: [JobMigration] = []
    /// Migrations that completed.
    private(set) var migrationsApplied = 0
    /// The producers writing into the queue's inbox, by number (a power loss ends them, as it ends
    /// every process), and the ids their inbox files are named by.
    var producers: [Int: QueueProducer] = [:]
    let inboxFileIDs = InboxFileIDs()
    /// Set when the last operation was a producer's, failed by an injected fault: the queue is not poisoned.
    private(set) var producerFaulted = false

    /// A run on `disk`, with `clock` (a recovery of another run's crash goes on with that run's clock).
    init(disk: SimulatedDisk = SimulatedDisk(), clock: ManualClock = ManualClock()) {
        self.disk = disk
        self.clock = clock
    }

    /// Starts from another run's acknowledged state (for replaying its crash).
    func adopt(model: QueueModel) { self.model = model }

    var configuration: Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.fileSystem = disk
        configuration.retryPolicy = .table([1, 3], maxAttempts: QueueModel.defaultMaxAttempts)
        configuration.leaseDuration = 100_000_000
        // Small chunks: the log still grows by preallocation, and crash images stay small.
        configuration.preallocationChunk = 4096
        configuration.logFileSize = logFileSize
        // Nothing is old enough to expire: compaction must keep the model's state exactly.
        configuration.retention = 1e9
        // Leases never expire in a simulation, so a recovered running job must still be running.
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        configuration.migrations = migrations
        // Small records: a migration spans several, and several files.
        configuration.migrationRecordBytes = 300
        configuration.durability = durability
        return configuration
    }

    /// The simulations' job migration `number`, as ``QueueModel/migrate(number:)`` describes it.
    /// The jobs the next migration must not split: those of `next`, and with ordered syncs those of
    /// every acknowledged state a power loss may take the queue back to (with the migrations
    /// registered since applied, as the recovering open applies them). A migration splits a job the
    /// engine refuses to split (one with dependents) only if some recoverable state has it.
    private func migrationUnsplittable(_ next: QueueModel) -> Set<String> {
        var ids = next.unsplittableIDs
        guard durability == .ordered else { return ids }
        for entry in acknowledged {
            var candidate = entry.model
            for number in (entry.migrations + 1)..<(migrations.count + 1) {
                candidate.migrate(number: number, unsplittable: migrationUnsplittable[number - 1])
            }
            ids.formUnion(candidate.unsplittableIDs)
        }
        return ids
    }

    static func migration(_ number: Int, unsplittable: Set<String>) -> JobMigration {
        JobMigration(number: number, name: "fuzz \(number)") { job, payload in
            switch QueueModel.migrationChoice(id: job.id.rawValue, number: number, unsplittable: unsplittable) {
            case .keep: return .keep
            case .rewrite: return .rewrite(kind: "k\(number)", payload: payload + Data("+m\(number)".utf8))
            case .split:
                return .split((1...2).map { .init(kind: "k", payload: payload + Data("/\($0)".utf8)) })
            case .invalid: return .invalid(reason: "fuzz")
            case .drop: return .drop
            }
        }
    }

    var now: Int64 { Millis.from(clock.now()) }

    /// Closes `queue` before an open: an injected failure while closing leaves it closed all the same.
    private func closeForReopen(_ queue: JobQueue) throws {
        do {
            try queue.close()
        } catch  where faultInjected && !disk.hasCrashed {
            faultInjected = false
            disk.clearFaults()
        }
        self.queue = nil
    }

    /// Opens the queue; a crash during open leaves it closed.
    func open() {
        do {
            queue = try JobQueue(directory: Self.directory, configuration: configuration)
            // Device conditions live in memory: the app reports them again after every open.
            try queue?.updateDeviceConditions(DeviceConditions(isNetworkAvailable: model.networkAvailable))
        } catch {
            queue = nil
            if !disk.hasCrashed && !faultInjected { violations.append("open failed without a crash: \(error)") }
        }
    }

    /// Runs one operation. Returns the model states the disk may hold if the
    /// machine crashed during it (the model before, and after when it would have been accepted).
    @discardableResult
    func perform(_ op: WorkloadOp) -> [QueueModel] {
        let candidates = performOperation(op)
        noteAcknowledged()
        return candidates
    }

    /// With ordered syncs, the states an open made durable before its last (its reclaims, then each inbox
    /// file it ingested: separate commits, of which a later power loss may keep any prefix) are acknowledged
    /// too. `beforeOpen` is the state the open started from; the caller notes the last.
    private func noteOpenSteps(from beforeOpen: QueueModel) {
        guard durability == .ordered else { return }
        for state in beforeOpen.openPrefixes(now: now).dropLast() where acknowledged.last?.model != state {
            acknowledged.append((state, migrations.count))
        }
    }

    /// Keeps ``acknowledged`` up to date after an operation or a recovery.
    private func noteAcknowledged() {
        if durability == .full || !disk.holdsOrderedChanges {
            acknowledged = [(model, migrations.count)]
        } else if acknowledged.last?.model != model {
            acknowledged.append((model, migrations.count))
        }
    }

    private func performOperation(_ op: WorkloadOp) -> [QueueModel] {
        guard let queue else { return [model] }
        lastError = nil
        producerFaulted = false
        var next = model
        var accepted = true
        let before = model
        // The states a crash during the operation may leave, when they are more than before and after.
        var interrupted: [QueueModel]?
        do {
            switch op {
            case .enqueue(let id, let priority, let delay, let maxAttempts, let key, let policy):
                let payload = Array("payload of \(id)".utf8)
                let expected = next.enqueue(
                    id: id, kind: "k", payload: payload, priority: priority, runAt: now + delay,
                    maxAttempts: maxAttempts, uniqueKey: key, policy: policy, now: now, tags: QueueModel.tags(of: id))
                let returned = try queue.enqueue(
                    NewJob(
                        kind: "k", payload: Data(payload), id: JobID(id), priority: priority,
                        delay: Double(delay) / 1000, maxAttempts: maxAttempts,
                        uniqueKey: key, uniquePolicy: policy, tags: Set(QueueModel.tags(of: id)),
                        retryPolicy: QueueModel.retryPolicy(of: id)))
                if returned.rawValue != expected { violations.append("\(op): returned \(returned), model \(expected)") }
                if expected == id { ids.append(id) }
                if policy == .replace, let key, let holder = before.holder(of: key) { leases[holder] = nil }
            case .enqueueWithOptions(let id, let pick, let network, let periodic, let key, let policy):
                let dependencies = pick.flatMap(pickID).map { [$0] } ?? []
                accepted = next.canEnqueue(
                    dependencies: dependencies, periodic: periodic, uniqueKey: key, policy: policy)
                let payload = Array("payload of \(id)".utf8)
                let interval: Int64? = periodic ? 900_000 : nil
                let expected =
                    accepted
                    ? next.enqueue(
                        id: id, kind: "m", payload: payload, priority: 0, runAt: now, maxAttempts: nil,
                        uniqueKey: key, policy: policy, now: now, dependencies: dependencies,
                        needsNetwork: network, interval: interval, tags: QueueModel.tags(of: id)) : nil
                let returned = try queue.enqueue(
                    NewJob(
                        kind: "m", payload: Data(payload), id: JobID(id), uniqueKey: key,
                        uniquePolicy: policy, dependencies: dependencies.map { JobID($0) },
                        constraints: JobConstraints(requiresNetwork: network),
                        periodic: periodic ? PeriodicSchedule(interval: 900) : nil, tags: Set(QueueModel.tags(of: id)),
                        retryPolicy: QueueModel.retryPolicy(of: id)))
                if returned.rawValue != expected {
                    violations.append("\(op): returned \(returned), model \(expected ?? "refusal")")
                }
                if expected == id { ids.append(id) }
                if policy == .replace, let key {
                    for (held, _) in leases
                    where next.jobs[held]?.state == .cancelled && before.jobs[held]?.uniqueKey == key {
                        leases[held] = nil
                    }
                }
            case .setNetwork(let available):
                next.setNetwork(available)
                try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: available))
            case .cancelKind(let kind):
                next.cancelAll { $0.kind == kind }
                let cancelled = try queue.cancel(kind: kind)
                let expected = next.jobs.values.filter {
                    $0.state == .cancelled && before.jobs[$0.id]?.state.isFinished == false
                }
                if Set(cancelled.map(\.id.rawValue)) != Set(expected.map(\.id)) {
                    violations.append("\(op): cancelled \(cancelled.map(\.id)), model \(expected.map(\.id))")
                }
            case .cancelTag(let tag):
                next.cancelAll { $0.tags.contains(tag) }
                let cancelled = try queue.cancel(tagged: tag)
                let expected = next.jobs.values.filter {
                    $0.state == .cancelled && before.jobs[$0.id]?.state.isFinished == false
                }
                if Set(cancelled.map(\.id.rawValue)) != Set(expected.map(\.id)) {
                    violations.append("\(op): cancelled \(cancelled.map(\.id)), model \(expected.map(\.id))")
                }
            case .cancelKey(let key):
                next.cancelAll { $0.uniqueKey == key }
                let cancelled = try queue.cancel(uniqueKey: key)
                let expected = next.jobs.values.filter {
                    $0.state == .cancelled && before.jobs[$0.id]?.state.isFinished == false
                }
                if Set(cancelled.map(\.id.rawValue)) != Set(expected.map(\.id)) {
                    violations.append("\(op): cancelled \(cancelled.map(\.id)), model \(expected.map(\.id))")
                }
            case .claim:
                let expected = next.claim(now: now)
                let lease = try queue.claim()
                if lease?.job.id.rawValue != expected {
                    violations.append(
                        "claim: took \(lease?.job.id.rawValue ?? "nothing"), model \(expected ?? "nothing")")
                }
                if let lease { leases[lease.job.id.rawValue] = lease }
            case .complete(let pick), .fail(let pick, _):
                let result = QueueModel.result(of: pick)
                let held = leases.keys.sorted()
                guard !held.isEmpty else { return [model] }
                let id = held[pick % held.count]
                let lease = leases[id]!
                accepted = next.jobs[id]?.state == .running
                if case .fail(_, let terminal) = op {
                    if accepted { next.fail(id, error: "e", terminal: terminal, now: now) }
                    leases[id] = nil
                    try queue.fail(lease, error: "e", terminal: terminal)
                } else {
                    if accepted { next.complete(id, now: now, result: result) }
                    leases[id] = nil
                    if let result {
                        try queue.complete(lease, result: Data(result))
                    } else {
                        try queue.complete(lease)
                    }
                }
            case .handOver(let pick, let terminal):
                let held = leases.keys.sorted()
                guard !held.isEmpty else { return [model] }
                let id = held[pick % held.count]
                let lease = leases[id]!
                accepted = next.jobs[id]?.state == .running
                // The model's own reading of when the record may claim: no unfinished job waits
                // for the one that ends (the retry delays are never 0, leases never expire here).
                let claimsHere = !next.hasUnfinishedDependents(id) && !next.hasExpiredParks(now: now)
                if accepted {
                    if let terminal {
                        next.fail(id, error: "e", terminal: terminal, now: now)
                    } else {
                        next.complete(id, now: now, result: QueueModel.result(of: pick))
                    }
                }
                let expected = accepted && claimsHere ? next.claim(now: now) : nil
                leases[id] = nil
                let handover = try queue.engine.durably {
                    try $0.end(
                        id: lease.job.id, token: lease.token, issued: true,
                        ending: terminal.map { .failed(error: "e", terminal: $0) }
                            ?? .succeeded(result: QueueModel.result(of: pick)),
                        claimingNext: .all)
                }
                handovers += 1
                if handover.claimedHere != claimsHere {
                    violations.append(
                        "\(op): the record \(handover.claimedHere ? "claimed" : "did not claim"), the model says otherwise"
                    )
                }
                if handover.next?.job.id != expected {
                    violations.append(
                        "\(op): claimed \(handover.next?.job.id ?? "nothing"), model \(expected ?? "nothing")")
                }
                if let claimed = handover.next {
                    handoverClaims += 1
                    leases[claimed.job.id] = try queue.makeLease(claimed)
                }
            case .cancel(let pick):
                guard let id = pickID(pick) else { return [model] }
                accepted = next.canCancel(id)
                if accepted { next.cancel(id) }
                leases[id] = nil
                try queue.cancel(JobID(id))
            case .retry(let pick):
                guard let id = pickID(pick) else { return [model] }
                accepted = next.canRetry(id)
                if accepted { next.retry(id, now: now) }
                try queue.retry(JobID(id))
            case .reschedule(let pick, let delay):
                guard let id = pickID(pick) else { return [model] }
                accepted = next.canReschedule(id)
                if accepted { next.reschedule(id, runAt: now + delay) }
                try queue.reschedule(JobID(id), runAt: Millis.date(now + delay))
            case .delete(let pick):
                guard let id = pickID(pick) else { return [model] }
                accepted = next.jobs[id] != nil
                if accepted { next.delete(id) }
                leases[id] = nil
                try queue.delete(JobID(id))
            case .advance(let ms):
                clock.advance(by: Double(ms) / 1000)
            case .compact:
                let report = try queue.compact()
                compactions += 1
                if report.jobsExpired != 0 { violations.append("compaction expired \(report.jobsExpired) jobs") }
            case .migrate:
                try closeForReopen(queue)
                let number = migrations.count + 1
                let unsplittable = migrationUnsplittable(next)
                migrations.append(Self.migration(number, unsplittable: unsplittable))
                migrationUnsplittable.append(unsplittable)
                next.migrate(number: number, unsplittable: unsplittable)
                let migrated = next
                next.recoverAtOpen(now: now)
                open()
                // Crashed: the states before the open's reclaims and ingestion (the recovery makes them, and
                // with ordered syncs acknowledges each step, see noteOpenSteps).
                guard self.queue != nil else { return [before, migrated] }
                noteOpenSteps(from: migrated)
                model = next
                migrationsApplied += 1
                leases = leases.filter { model.jobs[$0.key]?.state == .running }
                compare("migrate")
                return [model]
            case .reopen:
                try closeForReopen(queue)
                open()
                if self.queue != nil {
                    // Open reclaims the parked jobs past their deadline, and ingests the inbox.
                    noteOpenSteps(from: model)
                    model.recoverAtOpen(now: now)
                    leases = leases.filter { model.jobs[$0.key]?.state == .running }
                    compare("reopen")
                }
                return [model]
            case .release, .snooze:
                guard let held = try performStop(op, queue: queue, next: &next) else { return [model] }
                accepted = held
            case .parking(let parking):
                try perform(parking, on: queue, next: &next, accepted: &accepted)
            case .kindControl(let control):
                try control.perform(on: queue, model: &next, now: now)
            case .produce(let produce):
                do {
                    try perform(produce, next: &next)
                } catch let error as SpoolError where faultInjected && !disk.hasCrashed {
                    producerFaulted = true
                    throw error
                }
            case .ingest:
                interrupted = next.ingestionPrefixes()
                let expected = next.ingestAll()
                let ingested = try queue.ingestInbox()
                if ingested != expected { violations.append("ingest: \(ingested) jobs ingested, model \(expected)") }
            }
            if !accepted { violations.append("\(op): accepted, the model refuses it") }
            if next != before, let feature = op.feature { featureChanges[feature, default: 0] += 1 }
            // A success (or an enqueue after one) that handed a result to a dependent.
            if next.jobs.values.contains(where: {
                $0.prerequisiteResults.count > (before.jobs[$0.id]?.prerequisiteResults.count ?? 0)
            }) {
                featureChanges["results handed to dependents", default: 0] += 1
            }
            // A failure retried by the job's own policy, and an attempt given back whose start still counts.
            if next.jobs.values.contains(where: {
                $0.retry != nil && $0.nextRetryAt != nil && $0.nextRetryAt != before.jobs[$0.id]?.nextRetryAt
            }) {
                featureChanges["retries by a job's own policy", default: 0] += 1
            }
            if next.jobs.values.contains(where: {
                $0.starts > $0.attempts && $0.attempts < (before.jobs[$0.id]?.attempts ?? 0)
            }) {
                featureChanges["attempts given back, their starts kept", default: 0] += 1
            }
            let newlyCancelled = next.jobs.values.filter {
                $0.state == .cancelled && before.jobs[$0.id]?.state.isFinished == false
            }.count
            switch op {
            case .enqueueWithOptions(let id, _, _, _, _, _) where next.jobs[id].map({ !$0.waitingFor.isEmpty }) == true:
                blockedEnqueues += 1
            case .cancel where newlyCancelled > 1, .delete where newlyCancelled > 0, .fail where newlyCancelled > 0,
                .handOver where newlyCancelled > 0:
                cascades += 1
            case .complete, .fail, .handOver:
                if next.jobs.values.contains(where: { $0.occurrence > (before.jobs[$0.id]?.occurrence ?? 1) }) {
                    occurrences += 1
                }
            default: break
            }
            model = next
            leases = leases.filter { next.jobs[$0.key]?.state == .running }
            return [model]
        } catch let error as SpoolError
            where disk.hasCrashed || error.code == .needsReopen
            || (faultInjected && (error.code == .ioFailure || error.code == .diskFull))
        {
            lastError = error
            return accepted ? (interrupted ?? [before, next]) : [before]
        } catch {
            if accepted { violations.append("\(op): refused (\(error)), the model accepts it") }
            return [model]
        }
    }

    /// Makes `id` a target the workload's picks may name.
    func noteID(_ id: String) { ids.append(id) }

    func pickID(_ pick: Int) -> String? {
        ids.isEmpty ? nil : ids[pick % ids.count]
    }

    /// Compares the open queue with the model.
    private func compare(_ context: String) {
        guard let queue else { return }
        do {
            let problems = try model.differences(from: queue)
            if !problems.isEmpty { violations.append("\(context): " + problems.joined(separator: "; ")) }
        } catch {
            violations.append("\(context): reading the queue failed: \(error)")
        }
    }

    /// Replaces the disk with its crash image, reopens, and checks that the queue
    /// shows one of `candidates` (the states allowed by what was acknowledged).
    func crashAndRecover(
        candidates: [QueueModel], survival: [String: SimulatedDisk.Survival], cut: Int? = nil,
        crashDuringOpenAt: Int? = nil, context: @autoclosure () -> String
    ) {
        queue = nil
        faultInjected = false
        // A power loss ends the producers' processes too. The clock goes on in the same boot: leases are
        // the simulation's to keep (a lease of another boot would be expired at open).
        producers = [:]
        disk = disk.crashImage(survival, cut: cut)
        if let step = crashDuringOpenAt { disk.crash(atStep: step) }
        open()
        statesChecked += 1
        if queue == nil {
            if disk.hasCrashed {
                // A second crash during recovery: recover again from that.
                crashAndRecover(
                    candidates: candidates, survival: [:], context: context() + ", crashed again during open")
                return
            }
            violations.append(
                "\(context()): the queue did not open; files \(((try? disk.contentsOfDirectory(at: Self.directory)) ?? []).sorted().map { "\($0) \(disk.contents(of: Self.directory + "/" + $0)?.count ?? -1)" })"
            )
            return
        }
        disk.crash(atStep: nil)
        var matched: QueueModel?
        // The matched state before open's reclaims and ingestion: with ordered syncs a later power loss may take
        // them back, and the open after it reclaims again, at its own time.
        var matchedBeforeReclaims: QueueModel?
        var report: [String] = []
        for original in candidates {
            var candidate = original
            candidate.recoverAtOpen(now: now)
            guard let problems = try? candidate.differences(from: queue!) else { continue }
            if problems.isEmpty {
                matched = candidate
                matchedBeforeReclaims = original
                break
            }
            report.append(problems.joined(separator: "; "))
        }
        // With ordered syncs a power loss may take back the last acknowledged changes — a suffix of
        // them, so the queue must show one of the states acknowledged before, newest first.
        // Every earlier acknowledged state that recovers to what the queue shows (with ordered syncs): the
        // disk may hold any of them under the open's own commits, which a later power loss may take back.
        var earlierMatches: [(back: Int, beforeReclaims: QueueModel, recovered: QueueModel)] = []
        if durability == .ordered {
            for (back, entry) in acknowledged.dropLast().reversed().enumerated() {
                // The migrations registered since, applied again by the open that recovered.
                var candidate = entry.model
                for number in (entry.migrations + 1)..<(migrations.count + 1) {
                    candidate.migrate(number: number, unsplittable: migrationUnsplittable[number - 1])
                }
                let beforeReclaims = candidate
                candidate.recoverAtOpen(now: now)
                guard let problems = try? candidate.differences(from: queue!), problems.isEmpty else { continue }
                earlierMatches.append((back, beforeReclaims, candidate))
            }
        }
        // With ordered syncs a power loss may take back the last acknowledged changes — a suffix of
        // them, so the queue must show one of the states acknowledged before, newest first.
        if matched == nil, let newest = earlierMatches.first {
            matched = newest.recovered
            matchedBeforeReclaims = newest.beforeReclaims
            orderedLosses += 1
            lostStates += newest.back + 1
        }
        guard let state = matched else {
            violations.append(
                "\(context()): recovered state matches no acknowledged state: " + report.joined(separator: " | ")
                    + "; inbox files on disk \((try? disk.contentsOfDirectory(at: InboxFormat.directory(ofQueue: Self.directory))) ?? [])"
            )
            return
        }
        model = state
        acknowledged = []
        // Seed 21476: a recovery that matched the state after an ingestion may have made that ingestion
        // again (a power loss took it back, its file was still there); the state before it stays possible.
        for earlier in earlierMatches.reversed() where earlier.beforeReclaims != matchedBeforeReclaims {
            noteOpenSteps(from: earlier.beforeReclaims)
        }
        if let beforeReclaims = matchedBeforeReclaims { noteOpenSteps(from: beforeReclaims) }
        if acknowledged.last?.model != state { acknowledged.append((state, migrations.count)) }
        try? queue!.updateDeviceConditions(DeviceConditions(isNetworkAvailable: model.networkAvailable))
        noteBrokenInvariants(queue!.engine.stateSnapshot)
        // A lease is kept only if the job still runs under it: a power loss that took back acknowledged
        // changes (ordered syncs) may leave the job running under an earlier claim, whose lease the run lost.
        leases = leases.filter { id, lease in
            model.jobs[id]?.state == .running
                && (try? queue!.engine.job(lease.job.id))??.lease?.token == lease.token.rawValue
        }
    }

    /// After an injected write or sync failure: the queue refuses further changes;
    /// closing and reopening it (no power loss) shows one of `candidates`.
    func reopenAfterFailure(candidates: [QueueModel], context: @autoclosure () -> String) {
        // A producer's failed write poisons no queue.
        if let queue, !producerFaulted {
            do {
                _ = try queue.enqueue(NewJob(kind: "k", id: "refused"))
                violations.append(
                    "\(context()): a poisoned queue accepted a change (the operation threw \(lastError.map { "\($0)" } ?? "nothing"))"
                )
            } catch let error as SpoolError where error.code == .needsReopen {
            } catch {
                violations.append("\(context()): a poisoned queue said \(error), not needsReopen")
            }
            try? queue.close()
        }
        queue = nil
        faultInjected = false
        open()
        statesChecked += 1
        guard let queue else {
            violations.append("\(context()): the queue did not reopen")
            return
        }
        for original in candidates {
            var candidate = original
            candidate.recoverAtOpen(now: now)
            if let problems = try? candidate.differences(from: queue), problems.isEmpty {
                model = candidate
                // Nothing was lost, but with ordered syncs a later power loss may still take back the reopen's
                // own reclaims and ingestion (and the failed operation's record): the states before and after
                // them are both acknowledged, as after a recovery.
                if disk.holdsOrderedChanges { noteOpenSteps(from: original) }
                noteAcknowledged()
                try? queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: model.networkAvailable))
                noteBrokenInvariants(queue.engine.stateSnapshot)
                leases = leases.filter { model.jobs[$0.key]?.state == .running }
                return
            }
        }
        let detail = candidates.map { original in
            var candidate = original
            candidate.recoverAtOpen(now: now)
            return ((try? candidate.differences(from: queue)) ?? []).joined(separator: "; ")
        }.joined(
            separator: " | ")
        violations.append("\(context()): after reopening, the state matches no acknowledged state: \(detail)")
    }

    /// A crash image's recovery with the default open policy: no running job survives it.
    func checkReclaimingOpen() {
        let image = disk.crashImage()
        var configuration = self.configuration
        configuration.fileSystem = image
        configuration.runningJobsAtOpen = .reclaim
        do {
            let other = try JobQueue(directory: Self.directory, configuration: configuration)
            // A parked job is no orphan: it waits for its deadline (FORMAT.md, *Parked jobs and checkpoints*).
            let running = try other.jobs(state: .running).filter { $0.parkedKey == nil }
            if !running.isEmpty { violations.append("running jobs after a reclaiming open: \(running.map(\.id))") }
            noteBrokenInvariants(other.engine.stateSnapshot)
            try other.close()
        } catch {
            violations.append("a reclaiming open failed: \(error)")
        }
    }

    /// Counts a state that breaks an invariant as a violation (a run records no issue itself: the
    /// random fuzzer runs on threads that belong to no test, and reports its violations after).
    private func noteBrokenInvariants(_ state: QueueState) {
        let broken = state.brokenInvariants()
        if !broken.isEmpty {
            violations.append("broken invariants:\n\(broken.map(\.description).joined(separator: "\n"))")
        }
    }

    func close() { try? queue?.close() }
}

/// Survival patterns of a file's unsynced changes: every subset when few, and
/// tears of the last surviving write at several byte cuts and sector boundaries.
func survivalPatterns(for changes: [SimulatedDisk.Change], limit: Int = 48) -> [SimulatedDisk.Survival] {
    let count = min(changes.count, 6)
    var patterns: [SimulatedDisk.Survival] = []
    for mask in 0..<(UInt64(1) << UInt64(count)) {
        patterns.append(.init(mask: mask, tear: .none))
        guard mask != 0 else { continue }
        let last = Int(63 - mask.leadingZeroBitCount)
        guard case .write(_, let bytes) = changes[last], bytes.count > 1 else { continue }
        var cuts = Set([
            1, LogFormat.frameHeaderSize - 1, LogFormat.frameHeaderSize, LogFormat.frameHeaderSize + 1,
            bytes.count / 2, bytes.count - 1,
        ])
        cuts = cuts.filter { $0 > 0 && $0 < bytes.count }
        for cut in cuts.sorted() { patterns.append(.init(mask: mask, tear: .prefix(cut))) }
        for sector in stride(from: 512, to: bytes.count, by: 512).prefix(4) {
            patterns.append(.init(mask: mask, tear: .laterSectors(from: sector)))
        }
    }
    return Array(patterns.prefix(limit))
}

func randomSurvival(for changes: [SimulatedDisk.Change], using generator: inout SeededGenerator)
    -> SimulatedDisk.Survival
{
    let patterns = survivalPatterns(for: changes, limit: 200)
    return patterns[Int.random(in: 0..<patterns.count, using: &generator)]
}
