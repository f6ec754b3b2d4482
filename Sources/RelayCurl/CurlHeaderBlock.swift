import CCurl
import Synchronization

/// Header lines that many requests carry alike (a client's credential, topic, priority, content type),
/// made into a libcurl list once and linked behind each request's own lines by ``CurlEasy``, so a push
/// neither builds nor frees them. Immutable once made; libcurl only reads the list, from any driver thread,
/// and each handle holds the block for as long as its request may be read.
package final class CurlHeaderBlock: @unchecked Sendable {
    /// `name: value` lines, in the order they are sent.
    package let lines: [String]
    /// The lines as libcurl's list; nil when there are none.
    let list: UnsafeMutablePointer<curl_slist>?

    /// - Throws: ``TransportError`` `.other` when libcurl runs out of memory.
    package init(_ lines: [String]) throws(TransportError) {
        self.lines = lines
        list = try CurlEasy.headerList(lines)
    }

    deinit { if let list { curl_slist_free_all(list) } }
}

/// The last ``CurlHeaderBlock`` a client made and what it was made of: a fan-out's pushes ask for the same
/// block, so it is made again only when its key (a renewed credential, another topic) changes.
package final class CurlHeaderBlockCache<Key: Equatable & Sendable>: Sendable {
    /// The last block and its key. A struct, not a tuple: every push reads it in code that is not
    /// specialized to `Key`, which looks up the stored type's metadata at run time, and a labelled tuple's
    /// lookup hashes its labels each time.
    private struct Entry: Sendable {
        var key: Key
        var block: CurlHeaderBlock
    }
    private let last = Mutex<Entry?>(nil)

    package init() {}

    /// The block for `key`: the last one when its key is equal, else `lines()` made into a new one.
    /// - Throws: ``TransportError`` `.other` when libcurl runs out of memory.
    package func block(for key: Key, lines: () -> [String]) throws(TransportError) -> CurlHeaderBlock {
        if let cached = last.withLock({ $0?.key == key ? $0?.block : nil }) { return cached }
        let block = try CurlHeaderBlock(lines())
        last.withLock { $0 = Entry(key: key, block: block) }
        return block
    }
}
