import Foundation
import RelayCrypto
import Testing

@testable import WebPushCore

@Suite struct MessageEncryptionTests {
    typealias V = RFC8291

    static func rfcKeys() throws -> SubscriptionKeys {
        try SubscriptionKeys(p256dh: V.uaPublic, auth: V.auth)
    }

    @Test func reproducesRFC8291AppendixAByteForByte() throws {
        let body = try MessageEncryption.encrypt(
            Data(V.plaintext.utf8),
            to: Self.rfcKeys(),
            salt: V.bytes(V.salt),
            senderKey: KeyAgreementKey(rawPrivateKey: V.bytes(V.asPrivate))
        )
        #expect(body == V.bytes(V.body))
        // 86 (header) + 41 + 1 (delimiter) + 16 (tag); the example request's `Content-Length: 145` is one off.
        #expect(body.count == 144)
        #expect(body.base64URLEncodedString() == V.body)
        #expect(body.prefix(ContentCodingHeader.size) == V.bytes(V.header))
        #expect(body.dropFirst(ContentCodingHeader.size) == V.bytes(V.ciphertext))
        #expect(Data(V.plaintext.utf8) == V.bytes(V.plaintextBase64URL))
    }

    @Test func theIntermediateValuesAreTheRFCs() throws {
        let sender = try KeyAgreementKey(rawPrivateKey: V.bytes(V.asPrivate))
        #expect(sender.publicKey == V.bytes(V.asPublic))
        let receiver = try KeyAgreementKey(rawPrivateKey: V.bytes(V.uaPrivate))
        #expect(receiver.publicKey == V.bytes(V.uaPublic))
        let secret = try sender.sharedSecret(with: V.bytes(V.uaPublic))
        #expect(secret == V.bytes(V.ecdhSecret))
        #expect(try receiver.sharedSecret(with: V.bytes(V.asPublic)) == secret)
        #expect(Data("WebPush: info\0".utf8) + V.bytes(V.uaPublic) + V.bytes(V.asPublic) == V.bytes(V.keyInfo))
        let ikm = try HKDF.sha256(ikm: secret, salt: V.bytes(V.auth), info: V.bytes(V.keyInfo), length: 32)
        #expect(ikm == V.bytes(V.ikm))
        let (key, nonce) = try MessageEncryption.contentKey(
            secret: secret,
            auth: V.bytes(V.auth),
            userAgentKey: V.bytes(V.uaPublic),
            serverKey: V.bytes(V.asPublic),
            salt: V.bytes(V.salt)
        )
        #expect(Data(key) == V.bytes(V.cek))
        #expect(Data(nonce) == V.bytes(V.nonce))
    }

    @Test func decryptsTheRFCsBody() throws {
        let pair = try SubscriptionKeyPair(
            privateKey: KeyAgreementKey(rawPrivateKey: V.bytes(V.uaPrivate)),
            auth: V.bytes(V.auth)
        )
        #expect(try pair.decrypt(V.bytes(V.body)) == Data(V.plaintext.utf8))
        #expect(pair.keys == (try Self.rfcKeys()))
        #expect(pair.privateKey.rawPrivateKey == V.bytes(V.uaPrivate))
    }

    @Test func aRoundTripWithFreshKeysAndPadding() throws {
        let pair = try SubscriptionKeyPair.generate()
        let message = Data(#"{"title":"Room","body":"Ana: hi","dittoChatRoomId":"r1"}"#.utf8)
        let plain = try MessageEncryption.encrypt(message, to: pair.keys)
        #expect(plain.count == ContentCodingHeader.size + message.count + 1 + 16)
        #expect(try pair.decrypt(plain) == message)
        let padded = try MessageEncryption.encrypt(message, to: pair.keys, padding: 100)
        #expect(padded.count == plain.count + 100)
        #expect(try pair.decrypt(padded) == message)
        // Fresh salt and sender key each time: two bodies of one message differ.
        #expect(try MessageEncryption.encrypt(message, to: pair.keys) != plain)
        #expect(try pair.decrypt(MessageEncryption.encrypt(Data(), to: pair.keys)) == Data())
    }

    @Test func theLargestPlaintextMakesA4096ByteBodyAndOneMoreIsRefused() throws {
        let pair = try SubscriptionKeyPair.generate()
        #expect(MessageEncryption.maxPlaintextSize == 3993)
        let largest = Data(repeating: 0x61, count: 3993)
        let body = try MessageEncryption.encrypt(largest, to: pair.keys)
        #expect(body.count == 4096)
        #expect(try pair.decrypt(body) == largest)
        let error = #expect(throws: WebPushError.self) {
            try MessageEncryption.encrypt(Data(repeating: 0x61, count: 3994), to: pair.keys)
        }
        #expect(error?.code == .payloadTooLarge)
        #expect(error?.message.contains("3993") == true)
        #expect(throws: WebPushError.self) {
            try MessageEncryption.encrypt(Data(repeating: 0x61, count: 3000), to: pair.keys, padding: 994)
        }
    }

    @Test func aTamperedBodyOrAnotherAuthSecretDoesNotDecrypt() throws {
        let pair = try SubscriptionKeyPair.generate()
        let body = try MessageEncryption.encrypt(Data("secret".utf8), to: pair.keys)
        for index in [0, 30, ContentCodingHeader.size, body.count - 1] {
            var tampered = body
            tampered[index] ^= 0x01
            let error = #expect(throws: WebPushError.self) { try pair.decrypt(tampered) }
            // A flipped key id byte may leave the curve (invalidKey); any other flip fails authentication.
            #expect(error?.code == .decryptionFailed || error?.code == .invalidKey)
        }
        var otherAuth = pair.auth
        otherAuth[0] ^= 0x01
        let wrongAuth = #expect(throws: WebPushError.self) {
            try MessageEncryption.decrypt(body, privateKey: pair.privateKey, auth: otherAuth)
        }
        #expect(wrongAuth?.code == .decryptionFailed)
        let other = try SubscriptionKeyPair.generate()
        #expect(throws: WebPushError.self) { try other.decrypt(body) }
    }

    @Test func aMalformedHeaderOrRecordIsRefusedAsInvalidBody() throws {
        let pair = try SubscriptionKeyPair.generate()
        let body = try MessageEncryption.encrypt(Data("hello".utf8), to: pair.keys)
        var cases: [(String, Data)] = [("short", body.prefix(85)), ("tag only", body.prefix(86 + 16))]
        var idlen = body
        idlen[20] = 64
        cases.append(("idlen", idlen))
        var smallRecords = body
        smallRecords.replaceSubrange(16..<20, with: [0, 0, 0, 18])  // the record is longer: two records
        cases.append(("rs", smallRecords))
        var tinyRS = body
        tinyRS.replaceSubrange(16..<20, with: [0, 0, 0, 17])
        cases.append(("rs below 18", tinyRS))
        for (name, bytes) in cases {
            let error = #expect(throws: WebPushError.self, "\(name)") { try pair.decrypt(bytes) }
            #expect(error?.code == .invalidBody, "\(name)")
        }
    }

    /// A record whose delimiter is not 0x02 (0x01 says more records follow) or that holds only zeros is
    /// refused even though it authenticates (RFC 8291 §4).
    @Test(arguments: [[UInt8]([0x68, 0x69, 0x01]), [0x68, 0x69, 0x01, 0, 0], [0, 0, 0], [0x68, 0x69, 0x03]])
    func aRecordWithoutTheLastRecordsDelimiterIsRefused(record: [UInt8]) throws {
        let pair = try SubscriptionKeyPair.generate()
        let sender = try KeyAgreementKey.generate()
        let salt = try Digest.randomBytes(16)
        let secret = try sender.sharedSecret(with: pair.keys.p256dh)
        let (key, nonce) = try MessageEncryption.contentKey(
            secret: secret,
            auth: pair.auth,
            userAgentKey: pair.keys.p256dh,
            serverKey: sender.publicKey,
            salt: salt
        )
        let header = ContentCodingHeader(salt: salt, recordSize: 4096, keyId: sender.publicKey)
        let body = header.bytes + Data(try AES128GCM.seal(record, key: key, nonce: nonce))
        let error = #expect(throws: WebPushError.self) { try pair.decrypt(body) }
        #expect(error?.code == .invalidBody)
        // The same record with the right delimiter opens: the refusal is the delimiter's.
        var good = record.filter { $0 != 0 }.dropLast()
        good.append(0x02)
        let fixed = header.bytes + Data(try AES128GCM.seal(Array(good), key: key, nonce: nonce))
        #expect(try pair.decrypt(fixed) == Data(good.dropLast()))
    }
}
