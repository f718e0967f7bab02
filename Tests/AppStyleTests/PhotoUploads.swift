// The app's code under test, as an app would write it: it knows Spool only through `import Spool`.
import Foundation
import Spool

/// The app's job: upload one photo. Uploads retry soon, then less often, for a day's worth of attempts.
struct UploadPhoto: JobKind, Equatable {
    static let kind = "upload-photo"
    static var retryPolicy: RetryPolicy? { .exponential(base: 5, factor: 4, maximum: 3600, maxAttempts: 8) }
    var path: String
}

/// The app's other job: tell the server the user's settings changed. A short fixed table: it matters
/// only while the app is open.
struct SyncSettings: JobKind, Equatable {
    static let kind = "sync-settings"
    static var retryPolicy: RetryPolicy? { .table([1, 2], maxAttempts: 3) }
    var revision: Int
}

/// The app's server client, behind a protocol so that tests give a fake.
protocol PhotoServer: Sendable {
    /// Uploads the photo and returns the HTTP status.
    func upload(path: String, idempotencyKey: String) async throws -> Int
}

/// A server answer worth retrying.
struct ServerUnavailable: Error, CustomStringConvertible {
    let status: Int
    var description: String { "the server answered HTTP \(status)" }
}

/// The handler of ``UploadPhoto`` jobs.
struct PhotoUploader: Sendable {
    let server: any PhotoServer

    /// Uploads the photo with the job's id as idempotency key; a 4xx ends the job, a 5xx retries it.
    /// A job started before — after a failure, or an attempt given back when the app left the
    /// foreground — asks for a longer lease first: the server may still be busy with that key.
    func run(_ photo: UploadPhoto, _ context: JobContext) async throws {
        try context.checkCancellation()
        if context.starts > 1 { try await context.renewLease(for: 600) }
        let status = try await server.upload(path: photo.path, idempotencyKey: context.id.rawValue)
        switch status {
        case 200..<300: return
        case 400..<500: throw TerminalJobFailure("the server refused \(photo.path): HTTP \(status)")
        default: throw ServerUnavailable(status: status)
        }
    }
}

/// The line a list view shows for a job.
func statusText(_ job: Job) -> String {
    switch job.state {
    case .failed: return "Failed after \(job.attempts) attempts: \(job.lastError ?? "unknown error")"
    case .enqueued where job.isBlocked: return "Waiting for \(job.blockingPrerequisites.count) other upload(s)"
    case .enqueued where job.nextRetryAt != nil: return "Retrying (attempt \(job.attempts + 1) of \(job.maxAttempts))"
    case .enqueued: return "Waiting"
    case .running: return "Uploading"
    case .succeeded: return "Uploaded"
    case .cancelled: return "Cancelled"
    }
}

/// What the app would submit to BGTaskScheduler, one request per hint.
struct BackgroundRequest: Equatable {
    let identifier: String
    let earliestBeginDate: Date
    let requiresNetwork: Bool
    let requiresPower: Bool
}

/// One processing request for a hint that needs network or power, one refresh request otherwise.
func backgroundRequests(for hints: [SchedulingHint]) -> [BackgroundRequest] {
    hints.map { hint in
        let processing = hint.requiresNetworkConnectivity || hint.requiresExternalPower
        return BackgroundRequest(
            identifier: processing ? "app.processing" : "app.refresh",
            earliestBeginDate: hint.earliestBeginDate,
            requiresNetwork: hint.requiresNetworkConnectivity,
            requiresPower: hint.requiresExternalPower)
    }
}

/// A tool that works on claimed leases by hand: the photo a lease carries.
func photo(in lease: Lease) throws -> UploadPhoto {
    try UploadPhoto.decode(lease.payload)
}
