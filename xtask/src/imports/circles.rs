//! The circles of a graph: its strongly connected components of more than
//! one node (Tarjan's algorithm).

use std::collections::BTreeSet;

/// Every circle of the graph of `nodes` nodes and these edges, each as its
/// nodes in ascending order; the circles ordered by their first node.
pub fn circles(nodes: usize, edges: impl IntoIterator<Item = (usize, usize)>) -> Vec<Vec<usize>> {
    let mut next = vec![BTreeSet::new(); nodes];
    for (from, to) in edges {
        if from < nodes && to < nodes {
            next[from].insert(to);
        }
    }
    let mut tarjan = Tarjan {
        next,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        counter: 0,
        found: Vec::new(),
    };
    for node in 0..nodes {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    let mut found = tarjan.found;
    found.sort();
    found
}

struct Tarjan {
    next: Vec<BTreeSet<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    counter: usize,
    found: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.counter);
        self.low[node] = self.counter;
        self.counter += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        let next: Vec<usize> = self.next[node].iter().copied().collect();
        for to in next {
            match self.index[to] {
                None => {
                    self.visit(to);
                    self.low[node] = self.low[node].min(self.low[to]);
                }
                Some(index) if self.on_stack[to] => self.low[node] = self.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack[top] = false;
                component.push(top);
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                self.found.push(component);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::circles;

    #[test]
    fn a_loop_of_three_is_one_circle_and_a_chain_none() {
        let found = circles(5, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]);
        assert_eq!(found, vec![vec![0, 1, 2]]);
        assert!(circles(3, [(0, 1), (1, 2)]).is_empty());
    }

    #[test]
    fn two_separate_loops_are_two_circles() {
        let found = circles(4, [(0, 1), (1, 0), (2, 3), (3, 2), (1, 2)]);
        assert_eq!(found, vec![vec![0, 1], vec![2, 3]]);
    }
}
