/// A producer's enqueue of a job that arrives parked: the producer started the job's work itself (an app
/// extension handing an upload to a background `URLSession`), and the owner completes it by key.
extension QueueProducer {
    /// Records a job that the owner enqueues already parked under `key` for `duration` seconds (on this
    /// producer's clock), and returns its id once the record is durable.
    ///
    /// For work this process started and the owner finishes: a share extension hands a file to a
    /// background `URLSession` whose events the app receives, and records the job parked under the
    /// transfer's key; the app's delegate then calls ``JobQueue/completeParked(key:)-6o261`` or
    /// ``JobQueue/failParked(key:error:terminal:)-5cjen`` with that key, and a failed transfer runs the
    /// job again by its handler, as any parked job's failure does.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// let key = "uploads:\(UUID())"
    /// try producer.enqueue(NewJob(UploadPhoto(path: path)), parkedUnder: key, for: 86_400)
    /// task.taskDescription = key
    /// task.resume()
    /// ```
    ///
    /// Record the job before the work starts: the owner ingests the record, then a completion for `key`
    /// finds the job parked. A completion the owner's delegate receives before it has ingested the record
    /// is refused (``SpoolError/Code/jobNotFound``); the app calls ``JobQueue/ingestInbox()-2diog`` first.
    ///
    /// The owner ingests the job as enqueued, claimed (its first attempt counted) and parked, in one step.
    /// Where the rules refuse the claim or the park — its kind is paused or at its rate limit, or another
    /// job is parked under `key` — the owner enqueues the job as any producer's job instead: it runs by
    /// its handler, and a completion for `key` finds no job. A deadline that has passed by the time the
    /// owner ingests the job sends it back by the retry policy at once.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long key
    ///   (``JobLimits/maxParkKeyBytes``), a duration that leaves no time, or a job with prerequisites or a
    ///   periodic schedule (a job that arrives parked has already started); otherwise as ``enqueue(_:)-9kno6``.
    @discardableResult
    public func enqueue(_ job: NewJob, parkedUnder key: String, for duration: TimeInterval) throws -> JobID {
        try enqueue(job, parkedUnder: key, deadline: configuration.clock.now().addingTimeInterval(duration))
    }

    /// Records a job that the owner enqueues already parked. See ``enqueue(_:parkedUnder:for:)-8u7se``.
    @discardableResult
    public func enqueue(_ job: NewJob, parkedUnder key: String, for duration: TimeInterval) async throws -> JobID {
        try await JobQueue.offload(on: offloadQueue) { try self.enqueue(job, parkedUnder: key, for: duration) }
    }

    /// Records a job that the owner enqueues already parked under `key` until `deadline` (after now, on
    /// this producer's clock). See ``enqueue(_:parkedUnder:for:)-8u7se``.
    @discardableResult
    public func enqueue(_ job: NewJob, parkedUnder key: String, deadline: Date) throws -> JobID {
        try JobLimits.checkText(key, name: "park key", maxBytes: JobLimits.maxParkKeyBytes)
        guard job.dependencies.isEmpty, job.periodic == nil else {
            throw SpoolError(
                .invalidArgument, "a job that arrives parked has started: it cannot wait for prerequisites or repeat",
                jobID: job.id)
        }
        let now = Millis.from(configuration.clock.now())
        guard Millis.isRepresentable(deadline), Millis.from(deadline) > now else {
            throw SpoolError(
                .invalidArgument,
                "park: the deadline \(deadline) is not after now (\(Millis.date(now)), by the producer's clock)",
                jobID: job.id)
        }
        let park = InboxTerms.Park(key: key, deadline: Millis.from(deadline))
        return try enqueue(contentsOf: [job], parkedUnder: park)[0]
    }

    /// Records a job that the owner enqueues already parked until `deadline`. See
    /// ``enqueue(_:parkedUnder:for:)-8u7se``.
    @discardableResult
    public func enqueue(_ job: NewJob, parkedUnder key: String, deadline: Date) async throws -> JobID {
        try await JobQueue.offload(on: offloadQueue) { try self.enqueue(job, parkedUnder: key, deadline: deadline) }
    }
}
