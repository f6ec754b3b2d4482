import Testing

@testable import RelayHTTP

/// Header values as the routes read them.
@Suite struct HTTPHeadersTests {
    /// Only SP and HTAB leave a value's ends (RFC 9110 §5.6.3's OWS); what lies between, multi-byte text
    /// included, stays as sent.
    @Test(arguments: [
        ("  Bearer abc \t", "Bearer abc"), ("\t", ""), ("", ""), ("é x é", "é x é"),
        (" \u{3000}a\u{3000} ", "\u{3000}a\u{3000}"),
        ("a\r", "a\r"), (" 😀 ", "😀"),
    ])
    func trimmedLeavesOnlySpaceAndTab(_ value: String, _ expected: String) {
        #expect(HTTPHeaders.trimmed(Substring(value)) == expected)
        #expect(HTTPHeaders.trimmed(Substring("[" + value + "]").dropFirst().dropLast()) == expected)
    }

    @Test func trimmedValuesTrimEachValueOfTheName() {
        var headers = HTTPHeaders()
        headers.add("Authorization", " Bearer a ")
        headers.add("X-Other", " b ")
        #expect(headers.trimmedValues(for: "authorization") == ["Bearer a"])
    }
}
