import Foundation

extension DittoEvent {
    /// The most events one request may carry.
    public static let maximumPerRequest = 1_000

    /// Why a JSON text is not strict JSON (a key twice, a lone surrogate, trailing text), nil when it is: a
    /// text another parser would read otherwise is refused whole. RelayCore cannot import the checker
    /// (jansson, `RelayStrictJSON`); callers pass it.
    public typealias StrictSyntax = (Data) -> String?

    /// Reads one event from JSON (a Kafka record's value), checked by `strictSyntax` first.
    public static func decode(
        _ json: some Collection<UInt8>,
        strictSyntax: StrictSyntax = { _ in nil }
    ) throws(DittoEventError) -> DittoEvent {
        try decodeList(json, ndjson: false, single: true, strictSyntax: strictSyntax)[0]
    }

    /// Reads a request body: one event, a JSON array of events, or (with `ndjson`) one event per line, each
    /// line (else the body) checked by `strictSyntax` first. At most ``maximumPerRequest`` events; the first
    /// bad one is named by its index.
    public static func decodeRequest(
        _ body: some Collection<UInt8>,
        ndjson: Bool,
        strictSyntax: StrictSyntax = { _ in nil }
    ) throws(DittoEventError)
        -> [DittoEvent]
    {
        try decodeList(body, ndjson: ndjson, single: false, strictSyntax: strictSyntax)
    }

    private static func decodeList(
        _ body: some Collection<UInt8>,
        ndjson: Bool,
        single: Bool,
        strictSyntax: StrictSyntax
    )
        throws(DittoEventError) -> [DittoEvent]
    {
        let data = Data(body)
        func strict(_ text: Data, index: Int?) throws(DittoEventError) {
            if let problem = strictSyntax(text) { throw DittoEventError(index: index, reason: "not JSON: \(problem)") }
        }
        let decoder = JSONDecoder()
        let envelopes: [Envelope]
        if ndjson && !single {
            let lines = data.split(separator: UInt8(ascii: "\n")).filter {
                !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            }
            guard lines.count <= maximumPerRequest else { throw tooMany }
            var read: [Envelope] = []
            for (index, line) in lines.enumerated() {
                try strict(Data(line), index: index)
                do { read.append(try decoder.decode(Envelope.self, from: Data(line))) } catch {
                    throw DittoEventError(index: index, reason: reason(error))
                }
            }
            envelopes = read
        } else if !single, data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            try strict(data, index: nil)
            do { envelopes = try decoder.decode([Envelope].self, from: data) } catch {
                throw DittoEventError(index: index(error), reason: reason(error))
            }
            guard envelopes.count <= maximumPerRequest else { throw tooMany }
        } else {
            try strict(data, index: single ? nil : 0)
            do { envelopes = [try decoder.decode(Envelope.self, from: data)] } catch {
                throw DittoEventError(index: single ? nil : 0, reason: reason(error))
            }
        }
        guard !envelopes.isEmpty else { throw DittoEventError(index: nil, reason: "no events") }
        var events: [DittoEvent] = []
        for (position, envelope) in envelopes.enumerated() {
            do throws(DittoEventError) { events.append(try envelope.event()) } catch {
                throw DittoEventError(index: single ? nil : position, reason: error.reason)
            }
        }
        return events
    }

    private static var tooMany: DittoEventError {
        DittoEventError(index: nil, reason: "more than \(maximumPerRequest) events")
    }

    /// The array index a decoding error stopped at, when it is inside an array.
    private static func index(_ error: any Error) -> Int? {
        guard let error = error as? DecodingError else { return nil }
        return context(error)?.codingPath.first?.intValue
    }

    /// What is wrong, by field path and kind of problem, never by value: the reason is logged for a bad Kafka
    /// record and answered for a bad request. The path stops at the event's own fields (``envelopeKeys``):
    /// a document's keys are its content (a user document's are room and message ids).
    private static func reason(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "not JSON" }
        let path = Array(
            (context(decoding)?.codingPath ?? []).filter { $0.intValue == nil }.map(\.stringValue)
                .prefix { envelopeKeys.contains($0) }.prefix(2)
        )
        func named(_ keys: [String]) -> String { "`" + LogText.clipped(keys.joined(separator: ".")) + "`" }
        let field = path.isEmpty ? "the event" : named(path)
        switch decoding {
        case .keyNotFound(let key, _):
            return named(path + [key.stringValue]) + " is missing"
        case .typeMismatch, .valueNotFound: return "\(field) has the wrong type"
        case .dataCorrupted(let context) where context.debugDescription == JSONValue.tooDeep:
            return "\(field) is \(JSONValue.tooDeep) (counted from the top of the request body or Kafka record)"
        case .dataCorrupted: return path.isEmpty ? "not JSON" : "\(field) is not valid"
        @unknown default: return "\(field) is not valid"
        }
    }

    /// The keys of an event's own structure (``Envelope``): the top level's, then the change's.
    private static let envelopeKeys: Set = [
        "txnId", "type", "collection", "change", "method", "oldValue", "newValue", "value",
    ]

    private static func context(_ error: DecodingError) -> DecodingError.Context? {
        switch error {
        case .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .dataCorrupted(let context):
            context
        @unknown default: nil
        }
    }
}

/// An event as JSON has it, before its structure is checked.
private struct Envelope: Decodable {
    struct ChangeBody: Decodable {
        let method: String
        let oldValue: JSONValue?
        let newValue: JSONValue?
        let value: JSONValue?
    }

    let txnId: UInt64
    let type: String
    let collection: String?
    let change: ChangeBody?

    private enum CodingKeys: String, CodingKey { case txnId, type, collection, change }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Foundation reports a negative or fractional number for an unsigned field as invalid JSON as a
        // whole; a number that is not a txnId is named here instead.
        if let txnId = try? container.decode(UInt64.self, forKey: .txnId) {
            // The stores keep a txnId in a signed 64-bit column and order by it: one past that is refused,
            // not cut to the largest (which would take every later event for a replay of the first).
            guard txnId <= UInt64(Int64.max) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .txnId,
                    in: container,
                    debugDescription: "past 9223372036854775807"
                )
            }
            self.txnId = txnId
        } else if (try? container.decode(Double.self, forKey: .txnId)) != nil {
            throw DecodingError.dataCorruptedError(
                forKey: .txnId,
                in: container,
                debugDescription: "not a whole number from 0"
            )
        } else {
            txnId = try container.decode(UInt64.self, forKey: .txnId)
        }
        type = try container.decode(String.self, forKey: .type)
        collection = try container.decodeIfPresent(String.self, forKey: .collection)
        change = try container.decodeIfPresent(ChangeBody.self, forKey: .change)
    }

    /// A change with NUL (U+0000) in its collection, in the document an upsert stores or in the `_id` a remove
    /// names is refused whole, so that both stores take the same events and none gets a record it cannot keep
    /// (``DittoDocument/holdsNUL``); what is not kept (an upsert's `oldValue`) may hold it.
    private static let holdsNUL = DittoEventError(index: nil, reason: "a string or key holds NUL (U+0000)")

    func event() throws(DittoEventError) -> DittoEvent {
        let kind: DittoEvent.Kind =
            switch type {
            case "documentChanged": .documentChanged
            case "requeryRequired": .requeryRequired
            default: .other(type)
            }
        guard kind == .documentChanged else {
            return DittoEvent(txnId: txnId, kind: kind, collection: collection, change: nil)
        }
        guard let change else { throw DittoEventError(index: nil, reason: "`change` is missing") }
        guard let collection else { throw DittoEventError(index: nil, reason: "`collection` is missing") }
        guard !collection.holdsNUL else { throw Self.holdsNUL }
        // A document of another app's collection may have an object `_id`: such an event is kept, without
        // its change, for the applier to count by its collection rather than refuse the batch it is in.
        let named = change.method == "remove" ? change.value : change.newValue
        if case .object(let fields)? = named, fields["_id"]?.string == nil,
            ["upsert", "remove"].contains(change.method)
        {
            return DittoEvent(txnId: txnId, kind: kind, collection: collection, change: nil)
        }
        switch change.method {
        case "upsert":
            let new = try document(change.newValue, "change.newValue")
            guard !new.holdsNUL else { throw Self.holdsNUL }
            let old =
                change.oldValue == nil || change.oldValue == .null
                ? nil : try document(change.oldValue, "change.oldValue")
            return DittoEvent(txnId: txnId, kind: kind, collection: collection, change: .upsert(old: old, new: new))
        case "remove":
            let removed = try document(change.value, "change.value")
            guard !removed.id.holdsNUL else { throw Self.holdsNUL }
            return DittoEvent(txnId: txnId, kind: kind, collection: collection, change: .remove(removed))
        default:
            throw DittoEventError(index: nil, reason: "`change.method` is neither upsert nor remove")
        }
    }

    private func document(_ value: JSONValue?, _ field: String) throws(DittoEventError) -> DittoDocument {
        guard case .object? = value else {
            throw DittoEventError(index: nil, reason: "`\(field)` is not a document")
        }
        guard let value, let document = DittoDocument(value) else {
            throw DittoEventError(index: nil, reason: "`\(field)._id` is not a string")
        }
        return document
    }
}
