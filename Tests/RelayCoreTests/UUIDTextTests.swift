import Foundation
import RelayCore
import Testing

@Suite struct UUIDTextTests {
    @Test func lowercasedStringIsFoundationsFormInLowerCase() {
        // Foundation's own formatter is the oracle; the edge bytes (0x00, 0xff) and random ones.
        let fixed = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            UUID(
                uuid: (0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xf0, 0x0f, 0x10, 0x9a, 0xa9, 0x5c, 0xc5, 0x7e)
            ),
        ]
        for uuid in fixed + (0..<500).map({ _ in UUID() }) {
            #expect(uuid.lowercasedString == uuid.uuidString.lowercased())
        }
        #expect(fixed[2].lowercasedString == "01234567-89ab-cdef-f00f-109aa95cc57e")
    }
}
