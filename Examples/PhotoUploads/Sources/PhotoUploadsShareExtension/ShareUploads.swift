import Foundation
import PhotoUploadsShared
import Spool
import SpoolApp

/// The share extension's part: the photo is copied into the app group's container, the upload is
/// enqueued through a producer (the extension never owns the queue) parked under its transfer's key,
/// and the transfer starts in the extension's own background session. The system relaunches the app for
/// that session's events; the app records the outcome. The extension's view controller calls
/// ``share(_:to:)`` with the shared item's file and returns.
public enum ShareUploads {
    /// Enqueues and starts the upload of `photo`; returns once the job is durable and the transfer started.
    @discardableResult
    public static func share(_ photo: URL, to destination: URL) async throws -> JobID {
        let copy = try PhotoUploads.container().appendingPathComponent(UUID().uuidString + ".jpg")
        try FileManager.default.copyItem(at: photo, to: copy)
        let producer = try QueueProducer(
            directory: PhotoUploads.queueDirectory(), configuration: PhotoUploads.configuration)
        let upload = UploadPhoto(file: copy, destination: destination)
        let session = URLSessionTransfers(
            identifier: BackgroundTransfers.extensionSessionIdentifier(PhotoUploads.transferSession),
            sharedContainerIdentifier: PhotoUploads.appGroup,
            completions: TransferCompletions(recordingThrough: producer))
        return try await BackgroundTransfers.enqueue(
            try NewJob(upload), transferring: upload.transfer, producer: producer, session: session,
            for: PhotoUploads.transferPatience)
    }
}
