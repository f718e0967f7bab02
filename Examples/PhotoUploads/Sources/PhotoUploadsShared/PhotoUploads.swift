import Foundation
import Spool
import SpoolApp

/// What the app and its share extension agree on.
public enum PhotoUploads {
    /// The app group both belong to: the queue and the photos waiting to upload live in its container.
    public static let appGroup = "group.com.example.photouploads"
    /// The app's background transfer session.
    public static let transferSession = "com.example.photouploads.transfers"
    /// The task identifiers, as `BGTaskSchedulerPermittedIdentifiers` in the app's Info.plist lists them.
    public static let launches = LaunchIdentifiers(
        refresh: "com.example.photouploads.refresh", processing: ["com.example.photouploads.process"])
    /// How long a parked upload waits for its transfer before it is tried again.
    public static let transferPatience: TimeInterval = 24 * 3600

    /// The app group's container. Its files are protected until the first unlock after a boot (the
    /// default class, `completeUntilFirstUserAuthentication`), so a background launch while the device is
    /// locked can still open the queue; a stricter class would make those launches fail.
    public static func container() throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
            throw SpoolError(.invalidArgument, "the app group \(appGroup) is not in the app's entitlements")
        }
        return url
    }

    /// The queue's folder in the container.
    public static func queueDirectory() throws -> URL {
        try container().appendingPathComponent("uploads-queue", isDirectory: true)
    }

    /// The queue's configuration: shared by the app and the extension, so no lock is held between calls
    /// (a process suspended holding a lock in an app group container is killed).
    public static var configuration: Configuration {
        var configuration = Configuration()
        configuration.sharing = .shared
        configuration.retryPolicy = .exponential(base: 30, maximum: 3600, jitter: 0.2, maxAttempts: 8)
        return configuration
    }
}

/// An upload of one photo, copied into the app group's container.
public struct UploadPhoto: JobKind, Equatable {
    public static let kind = "upload-photo"
    /// The photo's file in the container.
    public var file: URL
    /// Where it goes.
    public var destination: URL

    public init(file: URL, destination: URL) {
        self.file = file
        self.destination = destination
    }

    /// The background transfer of the photo.
    public var transfer: TransferRequest { .upload(file, to: destination, headers: ["Content-Type": "image/jpeg"]) }
}
