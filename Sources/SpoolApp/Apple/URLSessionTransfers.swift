#if canImport(Darwin)
    import Foundation
    import Spool

    /// ``TransferSession`` over a background `URLSession`: the system carries the transfers out while the
    /// app is suspended or not running, and relaunches the app for their events.
    ///
    /// Each task's `taskDescription` carries the transfer's key (task identifiers start again in a new
    /// session), and for a download the destination's path on a second line (the download must be moved
    /// before the delegate returns, possibly in a later process than the one that started it).
    public final class URLSessionTransfers: NSObject, TransferSession, @unchecked Sendable {
        // @unchecked: `session` is set once in init; the delegate's state (`moveErrors`) is guarded.
        /// The background session's identifier.
        public let identifier: String
        private var session: URLSession!
        private let completions: TransferCompletions
        /// A download's failure to move its file, by task identifier, until the task's completion.
        private let moveErrors = Locked<[Int: String]>([:])

        /// The background session `identifier`, its container shared with the app group
        /// `sharedContainerIdentifier` (for a share extension's transfers), reporting to `completions`.
        public init(identifier: String, sharedContainerIdentifier: String?, completions: TransferCompletions) {
            self.identifier = identifier
            self.completions = completions
            super.init()
            let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
            configuration.sharedContainerIdentifier = sharedContainerIdentifier
            configuration.sessionSendsLaunchEvents = true
            configuration.isDiscretionary = false
            session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        }

        /// Starts an upload task (from the file) or a download task, described by `key`.
        public func start(_ request: TransferRequest, key: String) throws {
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            for (field, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: field) }
            let task: URLSessionTask
            switch request.direction {
            case .upload(let file):
                task = session.uploadTask(with: urlRequest, fromFile: file)
                task.taskDescription = key
            case .download(let destination):
                task = session.downloadTask(with: urlRequest)
                task.taskDescription = key + "\n" + destination.path
            }
            task.resume()
        }

        /// The keys of the session's tasks (`URLSession.allTasks`).
        public func pendingKeys() async -> Set<String> {
            Set(await session.allTasks.compactMap { $0.taskDescription.map(Self.key(of:)) })
        }

        /// `URLSession.finishTasksAndInvalidate()`: the session lets its delegate go; the system carries its
        /// transfers on, and a new session with the identifier receives their events.
        public func finish() { session.finishTasksAndInvalidate() }

        /// The key on a task description's first line.
        static func key(of description: String) -> String {
            String(description.prefix { $0 != "\n" })
        }
    }

    extension URLSessionTransfers: URLSessionDownloadDelegate {
        /// Moves a finished download to the destination its task's description names.
        public func urlSession(
            _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
        ) {
            guard let lines = downloadTask.taskDescription?.split(separator: "\n", maxSplits: 1), lines.count == 2
            else { return }
            let destination = URL(fileURLWithPath: String(lines[1]))
            do {
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.moveItem(at: location, to: destination)
            } catch {
                moveErrors.withLock { $0[downloadTask.taskIdentifier] = "moving the download: \(error)" }
            }
        }

        /// Reports the task's completion: its status and its error.
        public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let description = task.taskDescription else { return }
            let moveError = moveErrors.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            completions.transferDidComplete(
                TransferCompletion(
                    key: Self.key(of: description), statusCode: (task.response as? HTTPURLResponse)?.statusCode,
                    error: error.map { "\($0.localizedDescription)" } ?? moveError))
        }

        /// Reports that the session delivered all its events.
        public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            completions.sessionDidFinishEvents(identifier: identifier)
        }
    }
#endif
