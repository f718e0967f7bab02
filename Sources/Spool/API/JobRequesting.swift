/// What code that asks for work needs of a queue, in whichever process it runs: enqueueing jobs and
/// cancelling them. ``JobQueue`` (the owner, which applies each call at once) and ``QueueProducer`` (an
/// app extension or a helper process, whose calls the owner applies when it ingests them) both adopt
/// it, so that code shared by an app and its extensions is written once.
///
/// <!-- sample: skip -->
/// ```swift
/// func sharePhoto(_ photo: Photo, through queue: some JobRequesting) async throws -> JobID {
///     try await queue.enqueue(NewJob(kind: "upload", payload: photo.reference, tags: ["uploads"]))
/// }
/// ```
///
/// Cancelling is a request in both: the owner cancels at once when the job is unfinished and changes
/// nothing for a finished or unknown job; a producer's request is applied, the same way, at ingestion.
public protocol JobRequesting: Sendable {
    /// Enqueues `job` and returns its id once the call is durable. See `JobQueue.enqueue(_:)`.
    func enqueue(_ job: NewJob) throws -> JobID
    /// Enqueues `job`. See the blocking `enqueue(_:)`.
    func enqueue(_ job: NewJob) async throws -> JobID
    /// Enqueues `jobs` in one durable call, in order. See `JobQueue.enqueue(contentsOf:)`.
    func enqueue(contentsOf jobs: [NewJob]) throws -> [JobID]
    /// Enqueues `jobs` in one durable call. See the blocking `enqueue(contentsOf:)`.
    func enqueue(contentsOf jobs: [NewJob]) async throws -> [JobID]
    /// Asks for job `id` to be cancelled, if it is unfinished, and returns once the request is durable.
    func requestCancel(_ id: JobID) throws
    /// Asks for job `id` to be cancelled. See the blocking `requestCancel(_:)`.
    func requestCancel(_ id: JobID) async throws
    /// Asks for every unfinished job carrying `tag` to be cancelled, and returns once the request is durable.
    func requestCancel(tagged tag: String) throws
    /// Asks for every unfinished job carrying `tag` to be cancelled. See the blocking `requestCancel(tagged:)`.
    func requestCancel(tagged tag: String) async throws
}

extension JobQueue: JobRequesting {
    /// Cancels job `id` when it is unfinished (`cancel(_:)`); nothing for a finished or unknown job.
    public func requestCancel(_ id: JobID) throws {
        do {
            try cancel(id)
        } catch let error as SpoolError where error.code == .jobNotFound || error.code == .invalidState {
            return
        }
    }

    /// Cancels job `id` when it is unfinished. See the blocking `requestCancel(_:)`.
    public func requestCancel(_ id: JobID) async throws {
        do {
            try await cancel(id)
        } catch let error as SpoolError where error.code == .jobNotFound || error.code == .invalidState {
            return
        }
    }

    /// Cancels every unfinished job carrying `tag` (`cancel(tagged:)`).
    public func requestCancel(tagged tag: String) throws { _ = try cancel(tagged: tag) }

    /// Cancels every unfinished job carrying `tag`. See the blocking `requestCancel(tagged:)`.
    public func requestCancel(tagged tag: String) async throws { _ = try await cancel(tagged: tag) }
}

extension QueueProducer: JobRequesting {
    /// Records a request to cancel job `id` (`cancel(_:)`).
    public func requestCancel(_ id: JobID) throws { try cancel(id) }

    /// Records a request to cancel job `id`. See the blocking `requestCancel(_:)`.
    public func requestCancel(_ id: JobID) async throws { try await cancel(id) }

    /// Records a request to cancel every unfinished job carrying `tag` (`cancel(tagged:)`).
    public func requestCancel(tagged tag: String) throws { try cancel(tagged: tag) }

    /// Records a request to cancel every unfinished job carrying `tag`. See the blocking `requestCancel(tagged:)`.
    public func requestCancel(tagged tag: String) async throws { try await cancel(tagged: tag) }
}
