import UIKit

/// The app's one window scene. It forwards nothing to Spool: becoming active and entering the
/// background reach SpoolApp through UIKit's application notifications.
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {
        // The app's window and its photo list are set up here.
    }
}
