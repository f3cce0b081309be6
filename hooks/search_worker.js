// Appended to Material's search worker by hooks/search_worker.py, after the worker has made
// lunr global (`self.lunr`) and before any message reaches it.
//
// lunr 2.3.9 builds one automaton of every indexed word and merges its equal nodes, naming a
// node by its edges: each label followed by the id of the node it leads to. With digits among
// the labels that name is ambiguous (label "1" to node 23 reads as label "1" to node 2 followed
// by label "3"), so nodes that differ are merged, a query's expansion then reaches words the
// index does not hold, and the worker throws: Material shows no result for "0", nor for any
// pasted message with " 0 " in it. Ending each id with a comma makes the names unique.
lunr.TokenSet.prototype.toString = function () {
  if (this._str) return this._str
  let name = this.final ? "1" : "0"
  for (const label of Object.keys(this.edges).sort())
    name += label + this.edges[label].id + ","
  return (this._str = name)
}

// Material ends every word of a query with a wildcard, so that a word being typed finds the
// words it begins: "detach" finds "detach_". A message pasted whole is no word being typed:
// its short words ("a", "to", "in") then match every indexed word they begin, and "tensor"
// matches "tensor_hooks". In a query of more than three words, each word is matched as it
// is, after lunr's stop-word filter, as the pages' words were indexed.
const query = lunr.Index.prototype.query
lunr.Index.prototype.query = function (build) {
  return query.call(this, built => {
    build(built)
    if (built.clauses.length > 3)
      for (const clause of built.clauses)
        if (clause.term.endsWith("*")) {
          clause.term = clause.term.slice(0, -1)
          clause.usePipeline = true
        }
  })
}
