import PhotoUploadsShared
import Spool
import SpoolApp
import UIKit

/// The app, on the scene life cycle (Info.plist's `UIApplicationSceneManifest` names ``SceneDelegate``):
/// Spool is set up by one call at launch, before anything that may fail, and the app forwards only the
/// system's background-session events. SpoolApp follows the app's life cycle itself (UIKit's application
/// notifications, posted whichever life cycle an app uses) and asks for background time on entering the
/// background; launch requests, background launches, transfers, network and power conditions and logging
/// are SpoolApp's too.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    private var work: BackgroundWork?

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        do {
            // First: every launch identifier is registered here, whatever happens to the queue below.
            let work = try BackgroundWork.launch(
                options: .init(
                    launches: PhotoUploads.launches, transferSession: PhotoUploads.transferSession,
                    sharedContainerIdentifier: PhotoUploads.appGroup, logSubsystem: "com.example.photouploads"))
            self.work = work
            // Then the queue. If it cannot be opened (a full disk), launches complete saying why, and the app
            // runs without uploads; a later attach may succeed.
            try? work.attach {
                let queue = try JobQueue(
                    directory: PhotoUploads.queueDirectory(), configuration: PhotoUploads.configuration)
                let runner = try JobRunner(queue: queue)
                try runner.register(UploadPhoto.self) { photo, context in
                    // Parks the job, then hands the upload to the system; its completion ends the job.
                    try await work.startTransfer(photo.transfer, in: context, for: PhotoUploads.transferPatience)
                }
                return (queue, runner)
            }
        } catch {
            // The identifiers are not as Info.plist lists them: a programming error, found at the first run.
            fatalError("background work: \(error)")
        }
        return true
    }

    func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: "Default", sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
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
