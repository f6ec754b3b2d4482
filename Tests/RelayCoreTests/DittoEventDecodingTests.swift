import Foundation
import RelayCore
import Testing

@Suite struct DittoEventDecodingTests {
    let message = #"""
        {"txnId": 9223372036854775807, "type": "documentChanged", "collection": "messages",
         "change": {"method": "upsert", "oldValue": null,
                    "newValue": {"_id": "4B1D0C6E-8F3A-4E55-9B2A-0C1D2E3F4A5B", "roomId": "r1", "userId": "u1",
                                 "text": "hi", "createdOn": "2026-12-02T18:00:00.123Z",
                                 "mentions": [{"userId": "u2", "startIndex": 0, "endIndex": 3}],
                                 "thumbnailImageToken": {"id": "x"}}}}
        """#

    @Test func anInsertReadsWithItsFullTxnIdAndDocument() throws {
        let event = try DittoEvent.decode(Array(message.utf8))
        #expect(event.txnId == UInt64(Int64.max))
        #expect(event.kind == .documentChanged)
        #expect(event.collection == "messages")
        guard case .upsert(let old, let new)? = event.change else {
            Issue.record("not an upsert")
            return
        }
        #expect(old == nil)
        #expect(new.id == "4B1D0C6E-8F3A-4E55-9B2A-0C1D2E3F4A5B")
        let chat = DittoChatMessage(new)
        #expect(chat.roomId == "r1" && chat.userId == "u1" && chat.text == "hi")
        #expect(abs((chat.createdOn?.timeIntervalSince1970 ?? 0) - 1_796_234_400.123) < 0.000_5)
        #expect(chat.mentionedUserIds == ["u2"])
        #expect(chat.hasImage)
        #expect(!chat.isArchived && !chat.isDeleted && !chat.isEdited)
    }

    @Test func aRemoveAndARequeryRead() throws {
        let remove = try DittoEvent.decode(
            Array(
                #"{"txnId":5,"type":"documentChanged","collection":"rooms","change":{"method":"remove","value":{"_id":"r"}}}"#
                    .utf8
            )
        )
        #expect(remove.change == .remove(DittoDocument(id: "r", fields: ["_id": .string("r")])))
        let requery = try DittoEvent.decode(Array(#"{"txnId":6,"type":"requeryRequired"}"#.utf8))
        #expect(requery.kind == .requeryRequired && requery.change == nil)
        let other = try DittoEvent.decode(Array(#"{"txnId":7,"type":"somethingNew","collection":"x"}"#.utf8))
        #expect(other.kind == .other("somethingNew"))
        // Ditto allows any `_id`; a document without a string one keeps its event, with no change to apply.
        for change in [
            #"{"method":"upsert","newValue":{"_id":{"day":"d","user":"u"}}}"#, #"{"method":"remove","value":{}}"#,
        ] {
            let unnamed = try DittoEvent.decode(
                Array(#"{"txnId":8,"type":"documentChanged","collection":"analytics","change":\#(change)}"#.utf8)
            )
            #expect(unnamed.kind == .documentChanged && unnamed.collection == "analytics" && unnamed.change == nil)
        }
    }

    @Test(arguments: [
        (#"{"type":"documentChanged"}"#, "`txnId` is missing"),
        (#"{"txnId":"5","type":"documentChanged"}"#, "`txnId` has the wrong type"),
        (#"{"txnId":-1,"type":"documentChanged"}"#, "`txnId` is not valid"),
        (#"{"txnId":1.5,"type":"documentChanged"}"#, "`txnId` is not valid"),
        // The stores order by a signed 64-bit txnId: a larger one is refused, never cut to the largest.
        (#"{"txnId":9223372036854775808,"type":"documentChanged"}"#, "`txnId` is not valid"),
        (#"{"txnId":18446744073709551615,"type":"requeryRequired"}"#, "`txnId` is not valid"),
        (#"{"txnId":1,"type":"documentChanged","collection":"m"}"#, "`change` is missing"),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"m","change":{"method":"patch"}}"#,
            "`change.method` is neither upsert nor remove"
        ),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"m","change":{"method":"remove","value":[]}}"#,
            "`change.value` is not a document"
        ),
        ("not json", "not JSON"),
        // NUL shows nothing and PostgreSQL cannot keep it: refused wherever it is, so both stores agree.
        (
            #"{"txnId":1,"type":"documentChanged","collection":"users","change":{"method":"upsert","newValue":{"_id":"u1","name":"a\u0000"}}}"#,
            "a string or key holds NUL (U+0000)"
        ),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"users","change":{"method":"upsert","newValue":{"_id":"u1","subscriptions":{"r\u0000":null}}}}"#,
            "a string or key holds NUL (U+0000)"
        ),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"rooms","change":{"method":"upsert","newValue":{"_id":"r","participants":["a","\u0000"]}}}"#,
            "a string or key holds NUL (U+0000)"
        ),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"rooms\u0000","change":{"method":"remove","value":{"_id":"r"}}}"#,
            "a string or key holds NUL (U+0000)"
        ),
        (
            #"{"txnId":1,"type":"documentChanged","collection":"rooms","change":{"method":"remove","value":{"_id":"r\u0000"}}}"#,
            "a string or key holds NUL (U+0000)"
        ),
    ])
    func structureErrorsAreInvalid(json: String, reason: String) {
        #expect(throws: DittoEventError(index: nil, reason: reason)) { try DittoEvent.decode(Array(json.utf8)) }
    }

    /// NUL where nothing is kept (an upsert's `oldValue`, a removed document's other fields, a requery's
    /// collection) does not refuse the change: the upsert that mends a refused document goes through.
    @Test func nulWhereNothingIsKeptIsTaken() throws {
        let mend = try DittoEvent.decode(
            Array(
                #"{"txnId":2,"type":"documentChanged","collection":"users","change":{"method":"upsert","oldValue":{"_id":"u1","name":"a\u0000"},"newValue":{"_id":"u1","name":"a"}}}"#
                    .utf8
            )
        )
        #expect(mend.change?.document == DittoDocument(id: "u1", fields: ["_id": .string("u1"), "name": .string("a")]))
        let remove = try DittoEvent.decode(
            Array(
                #"{"txnId":3,"type":"documentChanged","collection":"users","change":{"method":"remove","value":{"_id":"u1","name":"a\u0000"}}}"#
                    .utf8
            )
        )
        #expect(remove.kind == .documentChanged)
        let requery = try DittoEvent.decode(Array(#"{"txnId":4,"type":"requeryRequired","collection":"x\u0000"}"#.utf8))
        #expect(requery.kind == .requeryRequired)
    }

    /// A value nested past ``JSONValue/maxDepth`` levels of the event (its document's `extra` is at level 3,
    /// named as `change.newValue`) is refused, at a cost bounded by that depth; one at it reads whole.
    @Test func aDocumentNestedTooDeepIsRefused() throws {
        func event(depth: Int) -> [UInt8] {
            let nested = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            let document = #"{"_id":"m1","extra":\#(nested)}"#
            let change = #"{"method":"upsert","oldValue":null,"newValue":\#(document)}"#
            return Array(#"{"txnId":1,"type":"documentChanged","collection":"messages","change":\#(change)}"#.utf8)
        }
        let deepest = JSONValue.maxDepth - 3
        let within = try DittoEvent.decode(event(depth: deepest))
        guard case .upsert(_, let new)? = within.change, var value = new.fields["extra"] else {
            Issue.record("not read whole")
            return
        }
        for _ in 0..<deepest {
            guard case .array(let items) = value, items.count == 1 else {
                Issue.record("not an array of one: \(value)")
                return
            }
            value = items[0]
        }
        #expect(value == .number(1))
        for depth in [deepest + 1, 500] {
            let reason =
                "`change.newValue` is nested deeper than 64 levels"
                + " (counted from the top of the request body or Kafka record)"
            #expect(throws: DittoEventError(index: nil, reason: reason)) {
                try DittoEvent.decode(event(depth: depth))
            }
        }
    }

    /// A reason names the field by its path within the event's own structure, never by a document's keys:
    /// those are the sender's content (ids), and a bad record's reason is logged.
    @Test func aDocumentsKeysAreNeverNamed() throws {
        let key = "room-" + String(repeating: "K", count: 950) + "\\n\\\"}{injected"
        let nested = String(repeating: "[", count: 70) + "1" + String(repeating: "]", count: 70)
        let document = #"{"_id":"m1","\#(key)":{"\#(key)":\#(nested)}}"#
        let change = #"{"method":"upsert","oldValue":null,"newValue":\#(document)}"#
        let json = #"{"txnId":1,"type":"documentChanged","collection":"messages","change":\#(change)}"#
        do {
            _ = try DittoEvent.decode(Array(json.utf8))
            Issue.record("a document nested past the limit was read")
        } catch {
            let reason =
                "`change.newValue` is nested deeper than 64 levels"
                + " (counted from the top of the request body or Kafka record)"
            #expect(error.reason == reason)
        }
    }

    @Test func aRequestIsOneEventAnArrayOrNDJSON() throws {
        let one = #"{"txnId":1,"type":"requeryRequired"}"#
        #expect(try DittoEvent.decodeRequest(Array(one.utf8), ndjson: false).count == 1)
        #expect(try DittoEvent.decodeRequest(Array(" [\(one),\(one)]".utf8), ndjson: false).count == 2)
        #expect(try DittoEvent.decodeRequest(Array("\(one)\n\n\(one)\r\n\(one)\n".utf8), ndjson: true).count == 3)
    }

    @Test func theFirstBadEventOfARequestIsNamedByIndex() {
        let good = #"{"txnId":1,"type":"requeryRequired"}"#
        let bad = #"{"txnId":1,"type":"documentChanged","collection":"m"}"#
        #expect(throws: DittoEventError(index: 2, reason: "`change` is missing")) {
            try DittoEvent.decodeRequest(Array("[\(good),\(good),\(bad)]".utf8), ndjson: false)
        }
        #expect(throws: DittoEventError(index: 1, reason: "`txnId` is missing")) {
            try DittoEvent.decodeRequest(Array("[\(good),{\"type\":\"x\"}]".utf8), ndjson: false)
        }
        #expect(throws: DittoEventError(index: 1, reason: "not JSON")) {
            try DittoEvent.decodeRequest(Array("\(good)\n{oops\n".utf8), ndjson: true)
        }
        #expect(throws: DittoEventError(index: nil, reason: "no events")) {
            try DittoEvent.decodeRequest(Array("[]".utf8), ndjson: false)
        }
        let many = "[" + Array(repeating: good, count: DittoEvent.maximumPerRequest + 1).joined(separator: ",") + "]"
        #expect(throws: DittoEventError(index: nil, reason: "more than 1000 events")) {
            try DittoEvent.decodeRequest(Array(many.utf8), ndjson: false)
        }
    }

    @Test func usersAndRoomsReadTheirSubscriptionsMentionsAndParticipants() {
        let user = DittoChatUser(
            DittoDocument(
                id: "u2",
                fields: [
                    "name": .string("Bea"),
                    "subscriptions": .object([
                        "r1": .string("2026-12-02T18:00:00Z"), "r2": .null, "r3": .number(4),
                        // No message can name these rooms: past ChatMessage.maxIdBytes, a control character.
                        String(repeating: "k", count: 3_000): .string("2026-12-02T18:00:00Z"), "r\t": .number(1),
                    ]),
                    "mentions": .object([
                        "r1": .array([.string("m1"), .number(3), .string(String(repeating: "m", count: 3_000))]),
                        String(repeating: "k", count: 3_000): .array([.string("m2")]),
                    ]),
                ]
            )
        )
        #expect(user.name == "Bea")
        #expect(user.subscriptions == ["r1": .readAt(Date(timeIntervalSince1970: 1_796_234_400)), "r3": .unreadable])
        #expect(user.mentions == ["r1": ["m1"]])
        let room = DittoChatRoom(
            DittoDocument(
                id: "d1",
                fields: ["participants": .array([.string("u1"), .string("u2")]), "isGenerated": .bool(true)]
            )
        )
        #expect(room.participants == ["u1", "u2"] && room.isGenerated && room.name == nil)
    }

    /// A room's or user's name is kept as a push shows it, however long the document's is.
    @Test func longNamesAreCutAsAPushShowsThem() {
        let long = DittoDocument(id: "r", fields: ["name": .string(String(repeating: "é", count: 100_000))])
        for name in [DittoChatRoom(long).name, DittoChatUser(long).name] {
            let kept = name ?? ""
            #expect(kept.count == ChatMessage.maxShownNameCharacters && kept.hasSuffix("…"))
            #expect(kept.utf8.count <= ChatMessage.maxShownNameBytes)
        }
    }
}
