/// What ``DittoMirrorRows/recordDocument(appId:collection:id:txnId:removedAt:)`` found.
package enum DittoDocumentWrite: Sendable, Equatable {
    /// The change is recorded: the caller applies it to the mirror.
    case applied
    /// The same txnId was recorded before.
    case duplicate
    /// A higher txnId was recorded before.
    case stale
}
