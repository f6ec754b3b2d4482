/// A first-in first-out queue: an array read from a head index on, compacted as it drains, so taking the
/// oldest element costs O(1) without a deque package.
package struct FIFOQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    package init() {}

    /// No element is left.
    package var isEmpty: Bool { head == items.count }
    /// The oldest element, nil when empty.
    package var first: Element? { isEmpty ? nil : items[head] }

    package mutating func append(_ element: Element) { items.append(element) }

    /// Takes the oldest element. Requires a non-empty queue.
    package mutating func removeFirst() -> Element {
        let element = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
