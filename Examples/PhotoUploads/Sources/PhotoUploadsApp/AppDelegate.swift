import PhotoUploadsShared
import Spool
import SpoolApp
import UIKit

/// The app: Spool is set up by one call at launch; the app forwards its lifecycle and the system's
/// background-session events. Everything else (launch requests, running the queue in background
/// launches, transfers, network and power conditions, logging) is SpoolApp's.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    private var work: BackgroundWork?

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        do {
            let queue = try JobQueue(
                directory: PhotoUploads.queueDirectory(), configuration: PhotoUploads.configuration)
            let runner = try JobRunner(queue: queue)
            // Before this method returns: the background-task identifiers are registered here.
            let work = try BackgroundWork.launch(
                queue: queue, runner: runner,
                options: .init(
                    launches: PhotoUploads.launches, transferSession: PhotoUploads.transferSession,
                    sharedContainerIdentifier: PhotoUploads.appGroup, logSubsystem: "com.example.photouploads"))
            try runner.register(UploadPhoto.self) { photo, context in
                // Parks the job, then hands the upload to the system; its completion ends the job.
                try await work.startTransfer(photo.transfer, in: context, for: PhotoUploads.transferPatience)
            }
            self.work = work
        } catch {
            // The queue could not be opened (see the error's path and errno): the app runs without uploads.
            print("uploads unavailable: \(error)")
        }
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        Task { await work?.appWillEnterForeground() }
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        // The attempts are given back and recorded before the app is suspended: ask for the time it takes.
        let time = application.beginBackgroundTask(withName: "spool.background-entry", expirationHandler: nil)
        Task {
            await work?.appDidEnterBackground()
            application.endBackgroundTask(time)
        }
    }

    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        // A session that is not Spool's (or no queue): the handler is the app's to call.
        if work?.transfers?.handleEvents(forSession: identifier, completionHandler: { completionHandler() }) != true {
            completionHandler()
        }
    }

    /// Called by the app's UI when the user picks a photo: the photo is copied into the app group's
    /// container first, and the job is durable when this returns.
    func upload(_ photo: URL, to destination: URL) async throws -> JobID? {
        guard let queue = work?.queue else { return nil }
        let copy = try PhotoUploads.container().appendingPathComponent(UUID().uuidString + ".jpg")
        try FileManager.default.copyItem(at: photo, to: copy)
        return try await queue.enqueue(UploadPhoto(file: copy, destination: destination))
    }
}
