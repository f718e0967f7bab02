/// Where a runtime's unstructured tasks start: on the task executor an app gave (`Task(executorPreference:)`,
/// where task executors exist: macOS 15, iOS 18), or on Swift's global concurrent pool, as `Task { }` does.
/// ``JobRunner/Options/taskExecutor`` and SpoolApp's `BackgroundWork.Options.taskExecutor` are kept as one.
package struct TaskPlace: Sendable {
    /// The executor, as `any Sendable`: a stored property cannot carry `TaskExecutor`'s availability.
    private var preference: (any Sendable)?

    /// Swift's global concurrent pool.
    package static let pool = TaskPlace()

    private init() {}

    /// The task executor tasks prefer, or `nil` for the global pool.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    package var executor: (any TaskExecutor)? {
        get { preference as? any TaskExecutor }
        set { preference = newValue }
    }

    /// Starts `body` as an unstructured task here.
    @discardableResult
    package func start(_ body: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor {
            return Task(executorPreference: executor, operation: body)
        }
        return Task(operation: body)
    }
}
