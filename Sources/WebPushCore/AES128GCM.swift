import COpenSSL
import Foundation
import RelayCrypto

/// AEAD_AES_128_GCM (RFC 5116 §5.1) through OpenSSL's EVP cipher interface: a 16-byte key, a 12-byte nonce,
/// no associated data, a 16-byte tag after the ciphertext (the layout of an `aes128gcm` record, RFC 8188 §2).
enum AES128GCM {
    static let keySize = 16
    static let nonceSize = 12
    static let tagSize = 16

    /// Encrypts `plaintext`: the ciphertext (as long as the plaintext) followed by the tag.
    /// - Throws: ``WebPushError`` `.cryptoFailed` naming OpenSSL's error.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(WebPushError) -> [UInt8] {
        precondition(key.count == keySize && nonce.count == nonceSize)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw WebPushError(.cryptoFailed, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var length: Int32 = 0, final: Int32 = 0
        let sealed = out.withUnsafeMutableBufferPointer { out in
            EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1
                && EVP_EncryptUpdate(ctx, out.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1
                && EVP_EncryptFinal_ex(ctx, out.baseAddress! + Int(length), &final) == 1
                && EVP_CIPHER_CTX_ctrl(
                    ctx,
                    EVP_CTRL_GCM_GET_TAG,
                    Int32(tagSize),
                    out.baseAddress! + plaintext.count
                ) == 1
        }
        guard sealed, Int(length + final) == plaintext.count else {
            throw WebPushError(.cryptoFailed, "AES-128-GCM encryption: \(openSSLErrorText())")
        }
        return out
    }

    /// Decrypts ciphertext-and-tag `sealed` and checks the tag; nil when it does not authenticate (another
    /// key or nonce, or altered bytes) or is shorter than a tag.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        precondition(key.count == keySize && nonce.count == nonceSize)
        guard sealed.count >= tagSize, let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer {
            EVP_CIPHER_CTX_free(ctx)
            ERR_clear_error()
        }
        let count = sealed.count - tagSize
        var tag = Array(sealed[count...])
        var out = [UInt8](repeating: 0, count: max(count, 1))
        var length: Int32 = 0, final: Int32 = 0
        let opened = out.withUnsafeMutableBufferPointer { out in
            EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1
                && EVP_DecryptUpdate(ctx, out.baseAddress, &length, sealed, Int32(count)) == 1
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1
                && EVP_DecryptFinal_ex(ctx, out.baseAddress! + Int(length), &final) == 1
        }
        guard opened, Int(length + final) == count else { return nil }
        return Array(out.prefix(count))
    }
}
