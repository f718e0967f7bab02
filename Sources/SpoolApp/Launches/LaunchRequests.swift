import Spool

/// Keeps the platform's pending launch requests following the queue's `JobQueue/schedulingHints(within:)`:
/// after every change of the queue it asks for the requests the hints call for, submits the ones that
/// differ from what is pending, and cancels the ones nothing needs any more. Never more requests than the
/// app has identifiers, so never past the platform's limits (`SchedulingLimits/iOS`).
///
/// Changes are coalesced: while one update runs, any number of changes make one more update after it.
final class LaunchRequests: Sendable {
    private let queue: JobQueue
    private let scheduler: any BackgroundTaskScheduling
    private let identifiers: LaunchIdentifiers
    private let events: EventLog

    private struct State {
        /// The requests submitted and not cancelled, by identifier.
        var pending: [String: LaunchRequest] = [:]
        /// Identifiers whose requests an earlier process may have left pending: every one at first,
        /// none after the first update (which cancels those nothing needs).
        var unknown: Set<String>
        /// An update runs now.
        var updating = false
        /// A change came while an update ran: one more update follows it.
        var changedMeanwhile = false
    }
    private let state: Locked<State>

    init(queue: JobQueue, scheduler: any BackgroundTaskScheduling, identifiers: LaunchIdentifiers, events: EventLog) {
        self.state = Locked(State(unknown: Set(identifiers.all)))
        self.queue = queue
        self.scheduler = scheduler
        self.identifiers = identifiers
        self.events = events
    }

    /// The requests submitted and not cancelled since this object was made, by identifier.
    var pending: [String: LaunchRequest] { state.withLock { $0.pending } }

    /// The system launched the app for the request `identifier`: it is no longer pending.
    func launched(_ identifier: String) {
        state.withLock { _ = $0.pending.removeValue(forKey: identifier) }
    }

    /// The queue changed: brings the pending requests up to date now, or after the update running now.
    func queueChanged() {
        let runs = state.withLock { state -> Bool in
            if state.updating {
                state.changedMeanwhile = true
                return false
            }
            state.updating = true
            return true
        }
        guard runs else { return }
        while true {
            update()
            let again = state.withLock { state -> Bool in
                if state.changedMeanwhile {
                    state.changedMeanwhile = false
                    return true
                }
                state.updating = false
                return false
            }
            if !again { return }
        }
    }

    /// One update: the hints, the requests they call for, the submissions and cancellations that differ.
    private func update() {
        let wanted: [LaunchRequest]
        do {
            wanted = identifiers.requests(for: try queue.schedulingHints(within: identifiers.limits))
        } catch {
            events.record(.schedulingFailed(error: "\(error)"))
            return
        }
        let now = queue.configuration.clock.now()
        let (pending, unknown) = state.withLock { ($0.pending, $0.unknown) }
        for request in wanted where !(pending[request.identifier]?.covers(request, at: now) ?? false) {
            do {
                try scheduler.submit(request)
                state.withLock { $0.pending[request.identifier] = request }
                events.record(.requestSubmitted(request))
            } catch {
                events.record(.requestRefused(request, error: "\(error)"))
            }
        }
        let wantedIdentifiers = Set(wanted.map(\.identifier))
        for identifier in unknown.union(pending.keys).sorted() where !wantedIdentifiers.contains(identifier) {
            scheduler.cancel(identifier: identifier)
            state.withLock { _ = $0.pending.removeValue(forKey: identifier) }
            events.record(.requestCancelled(identifier: identifier))
        }
        state.withLock { $0.unknown = [] }
    }
}
