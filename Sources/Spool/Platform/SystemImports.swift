// The module's one Foundation import, for every file of Spool: an `@_exported` import is
// visible to all the module's files (a plain import only to its own file), so the
// ladder is written here once rather than in every file that names `Data` or `Date`.
//
// Exported, so apps that `import Spool` see it too. That is what the public API needs
// (`Data` payloads, `Date`s), and it is the Foundation an app gets anyway: where
// `FoundationEssentials` exists (Linux) it is that module, which does not re-export the
// C library; where it does not, it is Foundation, which an Apple app imports regardless.
//
// The C library is not re-exported: the few files that call it (Platform/, Storage/)
// import it themselves, and `.ci/check-client-imports` checks that a client of
// `import Spool` cannot call it.
#if canImport(FoundationEssentials)
    @_exported import FoundationEssentials
#else
    @_exported import Foundation
#endif
