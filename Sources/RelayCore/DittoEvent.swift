/// One change event of Ditto's change stream (CDC to Kafka, or a webhook data bridge):
/// `{"txnId", "type", "collection", "change": {"method": "upsert", "oldValue", "newValue"} |
/// {"method": "remove", "value"}}`. An insert is an upsert whose `oldValue` is null.
public struct DittoEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A document of ``DittoEvent/collection`` changed as ``DittoEvent/change`` says.
        case documentChanged
        /// Ditto dropped changes: whatever the consumer mirrors must be read again by query.
        case requeryRequired
        /// A type this relay does not know (counted and ignored, never an error).
        case other(String)
    }

    /// A document's new state, or its removal.
    public enum Change: Sendable, Equatable {
        case upsert(old: DittoDocument?, new: DittoDocument)
        case remove(DittoDocument)

        /// The document the change is about (its new state, or what was removed).
        public var document: DittoDocument {
            switch self {
            case .upsert(_, let new): new
            case .remove(let removed): removed
            }
        }
    }

    /// Ditto's transaction id: with the collection and the document's `_id`, it identifies one change, and
    /// a document's changes arrive in increasing `txnId` order.
    public let txnId: UInt64
    public let kind: Kind
    /// The collection changed (absent on some `requeryRequired` events).
    public let collection: String?
    /// The change of a `documentChanged` event; nil for other kinds, and for a document whose `_id` is no
    /// string (Ditto allows any value; DittoChat writes strings), which no push or mirror row can name.
    public let change: Change?

    public init(txnId: UInt64, kind: Kind, collection: String?, change: Change?) {
        self.txnId = txnId
        self.kind = kind
        self.collection = collection
        self.change = change
    }
}
