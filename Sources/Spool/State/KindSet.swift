/// The job kinds a claim or a deadline query looks at: every kind, some kinds,
/// or every kind but some (the worker runtime leaves out the kinds whose
/// concurrency limit is reached).
enum KindSet: Sendable, Equatable {
    /// Every kind.
    case all
    /// These kinds only (none when empty).
    case only(Set<String>)
    /// Every kind except these.
    case allExcept(Set<String>)

    /// One kind, or every kind for `nil` (the public `claim(kind:)` argument).
    init(_ kind: String?) {
        self = kind.map { .only([$0]) } ?? .all
    }

    /// Whether jobs of `kind` are among the set.
    @inline(__always)
    func contains(_ kind: String) -> Bool {
        switch self {
        case .all: return true
        case .only(let kinds): return kinds.contains(kind)
        case .allExcept(let kinds): return !kinds.contains(kind)
        }
    }

    /// Whether the set holds no kind at all, so that a claim can return at once.
    var isEmpty: Bool {
        if case .only(let kinds) = self { return kinds.isEmpty }
        return false
    }
}
