/// The fields an enqueue gained in body version 3 (opcode 14, `enqueue_with_options`):
/// all empty for a plain enqueue, which is written as opcode 1 in body version 1.
///
/// Held in one optional, immutable box (as ``StoredJob`` holds its rare fields): most
/// enqueues set none, and inline the fields made every ``LogOperation`` 41 bytes larger,
/// past the size the compiler copies inline (replay copies each operation several times).
struct EnqueueOptions: Equatable, Sendable {
    /// The values; a change makes a new box, so copies stay independent.
    private final class Box: Sendable {
        let constraints: JobConstraints?
        let dependencies: [String]
        let periodic: (interval: Int64, flex: Int64)?

        init(constraints: JobConstraints?, dependencies: [String], periodic: (interval: Int64, flex: Int64)?) {
            self.constraints = constraints
            self.dependencies = dependencies
            self.periodic = periodic
        }
    }

    /// `nil` when every option is absent.
    private var box: Box?

    init(
        constraints: JobConstraints? = nil, dependencies: [String] = [], periodic: (interval: Int64, flex: Int64)? = nil
    ) {
        box =
            constraints == nil && dependencies.isEmpty && periodic == nil
            ? nil : Box(constraints: constraints, dependencies: dependencies, periodic: periodic)
    }

    /// What the job needs of the device; `nil` for nothing.
    var constraints: JobConstraints? {
        get { box?.constraints }
        set { self = EnqueueOptions(constraints: newValue, dependencies: dependencies, periodic: periodic) }
    }

    /// The ids of the job's prerequisites, in the order given.
    var dependencies: [String] {
        get { box?.dependencies ?? [] }
        set { self = EnqueueOptions(constraints: constraints, dependencies: newValue, periodic: periodic) }
    }

    /// Milliseconds between boundaries and of the flex window; `nil` for a one-off job.
    var periodic: (interval: Int64, flex: Int64)? {
        get { box?.periodic }
        set { self = EnqueueOptions(constraints: constraints, dependencies: dependencies, periodic: newValue) }
    }

    var isEmpty: Bool { box == nil }

    static func == (a: EnqueueOptions, b: EnqueueOptions) -> Bool {
        a.constraints == b.constraints && a.dependencies == b.dependencies
            && a.periodic?.interval == b.periodic?.interval && a.periodic?.flex == b.periodic?.flex
    }
}
