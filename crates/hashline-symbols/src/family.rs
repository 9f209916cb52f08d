//! Parents and previous siblings of the declarations a query found, from one walk down the
//! tree. tree-sitter's own `Node::parent` and `Node::prev_sibling` scan every earlier child
//! of each ancestor, so asking them for each of a file's top-level declarations costs the
//! square of the file's size; this walk visits only the ancestors of the declarations and
//! their children, once.

use std::collections::HashMap;

use hashline_syntax::tree_sitter::Node;

/// Where each visited node sits: its parent and its place among the parent's children.
pub(crate) struct Family<'t> {
    /// Node id → (parent, index among the parent's children).
    place: HashMap<usize, (Node<'t>, usize)>,
    /// Parent id → its children, in order (named and anonymous).
    children: HashMap<usize, Vec<Node<'t>>>,
}

impl<'t> Family<'t> {
    /// The family of every node that holds one of the byte offsets `starts` (sorted), from
    /// `root` down: enough for the parents and siblings of nodes starting there and of all
    /// their ancestors.
    pub(crate) fn of(root: Node<'t>, starts: &[usize]) -> Self {
        let mut family = Family { place: HashMap::new(), children: HashMap::new() };
        let holds = |node: Node<'_>| {
            let first = starts.partition_point(|&s| s < node.start_byte());
            starts.get(first).is_some_and(|&s| s <= node.end_byte())
        };
        let mut cursor = root.walk();
        let mut open = vec![root];
        while let Some(node) = open.pop() {
            let kids: Vec<Node<'t>> = node.children(&mut cursor).collect();
            for (index, &kid) in kids.iter().enumerate() {
                family.place.insert(kid.id(), (node, index));
                if kid.child_count() > 0 && holds(kid) {
                    open.push(kid);
                }
            }
            family.children.insert(node.id(), kids);
        }
        family
    }

    /// The parent of a visited node (`None` for the root or a node not visited).
    pub(crate) fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.place.get(&node.id()).map(|&(parent, _)| parent)
    }

    /// The sibling just before a visited node, named or not.
    pub(crate) fn prev_sibling(&self, node: Node<'t>) -> Option<Node<'t>> {
        let &(parent, index) = self.place.get(&node.id())?;
        index.checked_sub(1).and_then(|before| self.children.get(&parent.id())?.get(before).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashline_syntax::{LanguageId, ParseLimits, parse};

    /// Every node's answers agree with tree-sitter's own, at every depth.
    #[test]
    fn answers_agree_with_tree_sitter() {
        let text =
            b"/// a\n#[x]\nfn a() {}\nmod m {\n    // c\n    struct S;\n    impl S { fn f(&self) { let v = 1; } }\n}\n";
        let tree = parse(LanguageId::Rust, text, None, ParseLimits::DEFAULT).unwrap();
        let mut all = Vec::new();
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            all.push(node);
            stack.extend(node.children(&mut cursor));
        }
        let mut starts: Vec<usize> = all.iter().map(|n| n.start_byte()).collect();
        starts.sort_unstable();
        let family = Family::of(tree.root_node(), &starts);
        assert!(all.len() > 40);
        for node in all {
            assert_eq!(family.parent(node), node.parent(), "{node:?}");
            assert_eq!(family.prev_sibling(node), node.prev_sibling(), "{node:?}");
        }
    }
}
