import Foundation

extension JobQueue {
    // MARK: What the external work of a parked job says

    /// Records that the external work of the parked job holding `key` succeeded, with `result`
    /// (``Job/result``) in the same record: a server's answer (the id of an uploaded photo) becomes what
    /// the app and the jobs waiting for this one read, as `complete(_:result:)` records a handler's.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a result over ``JobLimits/maxResultBytes``
    ///   (nothing is written); ``SpoolError/Code/jobNotFound`` when no parked job holds `key`.
    @discardableResult
    public func completeParked(key: String, result: Data) throws -> Job {
        Job(try engine.durably { try $0.completeParked(key: key, result: [UInt8](result)) })
    }

    /// Records that the parked job holding `key` succeeded, with `result`. See the blocking
    /// `completeParked(key:result:)`.
    @discardableResult
    public func completeParked(key: String, result: Data) async throws -> Job {
        Job(try await engine.durably { try $0.completeParked(key: key, result: [UInt8](result)) })
    }

    /// Records that the external work of the parked job holding `key` failed, and that its next attempt
    /// comes at `retryAt` rather than after the retry policy's delay: a server that answered 429 or 503
    /// with `Retry-After`. A time already past retries at once. With its attempts spent the job fails, as
    /// `failParked(key:error:terminal:)`.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound`` when no parked job holds `key`.
    @discardableResult
    public func failParked(key: String, error: String, retryAt: Date) throws -> Job {
        Job(try engine.durably { try $0.failParked(key: key, error: error, terminal: false, retryAt: retryAt) })
    }

    /// Records that the parked job holding `key` failed, to be retried at `retryAt`. See the blocking
    /// `failParked(key:error:retryAt:)`.
    @discardableResult
    public func failParked(key: String, error: String, retryAt: Date) async throws -> Job {
        Job(
            try await engine.durably {
                try $0.failParked(key: key, error: error, terminal: false, retryAt: retryAt)
            })
    }

    /// Reports how far the external work of the parked job holding `key` has come (bytes of a system
    /// transfer): observable by ``progress(of:)`` and ``progressUpdates(_:)`` as a handler's
    /// ``JobContext/reportProgress(_:)`` is. Memory only; ignored when no job is parked under `key`.
    public func reportProgress(_ progress: JobProgress, parkedUnder key: String) {
        engine.reportParkedProgress(key: key, progress)
    }
}
