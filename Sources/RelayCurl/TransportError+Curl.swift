import CCurl

extension TransportError {
    /// The transport error for a failed libcurl transfer: its `CURLcode`, libcurl's error text and the HTTP
    /// status seen, if any (0: none; a GOAWAY before any answer means the stream was not processed).
    init(curl result: CURLcode, text: String, responseCode: Int = 0) {
        let code: Code
        switch result {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            code = .invalidURL
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            code = .connect
        case CURLE_OPERATION_TIMEDOUT:
            code = .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            code = .tls
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
            CURLE_RECV_ERROR:
            let refused = text.contains("REFUSED_STREAM") || (responseCode == 0 && text.contains("GOAWAY"))
            code = refused ? .refused : .reset
        default:
            code = .other
        }
        self.init(code: code, curlCode: Int(result.rawValue), message: text)
    }
}
