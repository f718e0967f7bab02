#if canImport(Darwin)
    import Foundation
    import Spool

    /// ``TransferSession`` over a background `URLSession`: the system carries the transfers out while the
    /// app is suspended or not running, and relaunches the app for their events.
    ///
    /// Each task's `taskDescription` carries the transfer's key (task identifiers start again in a new
    /// session), and for a download the destination's path on a second line (the download must be moved
    /// before the delegate returns, possibly in a later process than the one that started it). Each request
    /// carries its own network switches (`allowsCellularAccess`, `allowsExpensiveNetworkAccess`,
    /// `allowsConstrainedNetworkAccess`, all three set on every request). The delegate reports the bytes
    /// sent or written as progress, and an upload's response body (as much as
    /// ``TransferCompletion/maxBodyBytes``) and headers with its completion.
    public final class URLSessionTransfers: NSObject, TransferSession, @unchecked Sendable {
        // @unchecked: `session` is set once in init; the delegate's state (`taskState`) is guarded.
        /// The background session's identifier.
        public let identifier: String
        private var session: URLSession!
        private let completions: TransferCompletions
        /// What the delegate gathered of a task until its completion, by task identifier.
        private struct TaskState {
            var moveError: String?
            var body = Data()
            var isBodyCut = false
        }
        private let taskState = Locked<[Int: TaskState]>([:])

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
            urlRequest.allowsCellularAccess = request.network.cellular
            urlRequest.allowsExpensiveNetworkAccess = request.network.expensive
            urlRequest.allowsConstrainedNetworkAccess = request.network.constrained
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

        /// Cancels the session's tasks described by `key` (`URLSessionTask.cancel()`): each completes with
        /// `NSURLErrorCancelled`.
        public func cancel(key: String) async {
            for task in await session.allTasks where task.taskDescription.map(Self.key(of:)) == key {
                task.cancel()
            }
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

        /// The total a delegate reports, or `nil` for `NSURLSessionTransferSizeUnknown` (-1) and 0.
        static func total(_ expected: Int64) -> Int64? { expected > 0 ? expected : nil }

        /// Reports the task's completion: its status, headers, an upload's body, a download's file, its error.
        private func complete(_ task: URLSessionTask, error: (any Error)?) {
            guard let description = task.taskDescription else { return }
            let gathered = taskState.withLock { $0.removeValue(forKey: task.taskIdentifier) } ?? TaskState()
            let response = task.response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (field, value) in response?.allHeaderFields ?? [:] {
                if let field = field as? String, let value = value as? String { headers[field] = value }
            }
            let lines = description.split(separator: "\n", maxSplits: 1)
            let failure = error.map { "\($0.localizedDescription)" } ?? gathered.moveError
            completions.transferDidComplete(
                TransferCompletion(
                    key: Self.key(of: description), statusCode: response?.statusCode, error: failure,
                    headers: headers,
                    body: task is URLSessionDownloadTask || gathered.body.isEmpty ? nil : gathered.body,
                    isBodyCut: gathered.isBodyCut,
                    file: lines.count == 2 && failure == nil ? URL(fileURLWithPath: String(lines[1])) : nil))
        }
    }

    extension URLSessionTransfers: URLSessionDataDelegate {
        /// Reports the bytes of an upload's body sent so far as progress.
        public func urlSession(
            _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            guard let description = task.taskDescription else { return }
            completions.transferMadeProgress(
                key: Self.key(of: description), bytes: totalBytesSent, expected: Self.total(totalBytesExpectedToSend))
        }

        /// Keeps an upload's response body, up to ``TransferCompletion/maxBodyBytes``.
        public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            taskState.withLock { states in
                var state = states[dataTask.taskIdentifier] ?? TaskState()
                let room = TransferCompletion.maxBodyBytes - state.body.count
                state.body.append(data.prefix(max(0, room)))
                if data.count > room { state.isBodyCut = true }
                states[dataTask.taskIdentifier] = state
            }
        }

        /// Reports the task's completion.
        public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            complete(task, error: error)
        }

        /// Reports that the session delivered all its events.
        public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            completions.sessionDidFinishEvents(identifier: identifier)
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
                taskState.withLock {
                    $0[downloadTask.taskIdentifier, default: TaskState()].moveError = "moving the download: \(error)"
                }
            }
        }

        /// Reports the bytes of a download written so far as progress.
        public func urlSession(
            _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
            totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
        ) {
            guard let description = downloadTask.taskDescription else { return }
            completions.transferMadeProgress(
                key: Self.key(of: description), bytes: totalBytesWritten,
                expected: Self.total(totalBytesExpectedToWrite))
        }
    }
#endif
