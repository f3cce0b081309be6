// Put before Material's search worker by hooks/search_worker.py. It wraps the worker's two ends
// (the "message" listener Material adds and the postMessage it answers with), so that a paste
// reaches lunr as the message it holds, and the answer puts first the section that shows it.
// Material's protocol: {type: 0, data: {config, docs}} sets up, {type: 2, data: query} asks,
// {type: 1} says it is ready, {type: 3, data: {items}} answers, one group of results per page, best first.
(() => {
  const listen = self.addEventListener
  const post = self.postMessage
  let site = null  // what the setup message brought: {rows, errors, docs}
  let asked = null  // the paste being answered
  // lunr builds its index when the first query comes, not on every page load (some 0.3 s of a
  // core on a laptop, more on a phone, for a page where most readers never search): the setup
  // message waits (`pending`) and the page hears at once that search is ready; the first query
  // hands the setup to Material's code, and the queries wait, in order, until the index is built.
  let deliver = null  // hands a message to Material's listener
  let pending = null
  let building = false
  let waiting = []

  self.addEventListener = function (type, listener, ...rest) {
    if (type !== "message") return listen.call(self, type, listener, ...rest)
    deliver = message => listener({data: message})
    return listen.call(self, type, event => {
      const message = receive(event.data)
      if (message) deliver(message)
    }, ...rest)
  }
  self.postMessage = (message, ...rest) => {
    if (message.type === 1 && building) {  // the index is built: the queries that waited go on
      building = false
      next()
      return
    }
    post.call(self, answer(message), ...rest)
    if (message.type === 3) next()
  }

  // The next query that waited, once the one before it is answered: an answer is read against
  // the paste it answers (`asked`).
  function next() {
    if (waiting.length) deliver(ask(waiting.shift()))
  }

  function receive(message) {
    if (message.type === 0) {
      mendLunr()
      const {config, docs} = message.data
      site = {rows: indexed(config.messages || []), errors: config.errors, docs: new Map(docs.map(d => [d.location, d]))}
      pending = message
      post.call(self, {type: 1})
      return null
    } else if (message.type === 2 && site) {
      if (pending && !message.data.trim()) {  // Material asks "" once ready: nothing to find, no index needed
        post.call(self, {type: 3, data: {items: []}})
        return null
      }
      if (pending) {
        building = true
        deliver(pending)
        pending = null
      }
      if (building || waiting.length) {
        waiting.push(message.data)
        return null
      }
      return ask(message.data)
    }
    return message
  }

  function ask(text) {
    asked = read(text)
    return {type: 2, data: asked.query}
  }

  function answer(message) {
    if (message.type !== 3 || !asked) return message
    const {paste, found, query} = asked
    asked = null
    let items = message.data.items
    if (found) items = first(items, found)
    else if (paste.looksLikeMessage && site.errors)
      items = [[{location: site.errors, title: "Not covered here", score: 0, terms: {},
                 text: `No section of this site shows “${escape(paste.headline)}”. The nearest sections follow.`}],
               ...items]
    const words = query.split(/\s+/).length
    for (const group of items)
      for (const doc of group)
        doc.terms = Object.fromEntries(Object.entries(doc.terms || {}).filter(
          // A short word highlighted on the landing page marks every "a", "in" and "t" there; the
          // words of a long paste that a page lacks are no news to show under each result.
          ([term, met]) => term.length > 2 && (met || words <= 3)))
    return {...message, data: {...message.data, items}}
  }

  // The page group and the section found first, with the section above the rest; its landing
  // page highlights the words of the message that the paste holds, not every word it shares.
  function first(items, found) {
    const {location, words} = found
    const page = location.split("#")[0]
    let group = items.find(g => g.some(doc => doc.location === page)) || []
    items = items.filter(g => g !== group)
    const top = Math.max(0, ...group.map(doc => doc.score))
    const section = group.find(doc => doc.location === location) || site.docs.get(location)
    const terms = Object.fromEntries(words.map(word => [word, true]))
    group = [{...section, score: top + 1, terms}, ...group.filter(doc => doc.location !== location)]
    if (!group.some(doc => doc.location === page) && site.docs.has(page))
      group.push({...site.docs.get(page), score: 0, terms: {}})
    return [group, ...items]
  }

  const escape = text => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

  // --- Reading a paste ---------------------------------------------------------------------
  // Readers paste what their terminal shows: a traceback's frames (`File "x.py", line 3, in f`
  // and the source line under it), a warning behind Python's `path:line:` prefix, the C++ tail
  // `(Triggered internally at C:\...\TensorBody.h:482.)`, paths and URLs. None of that names
  // the problem, and its quotes and colons are lunr's query syntax (a required phrase, a
  // field). The search box is one line: a paste reaches the worker with its line breaks
  // dropped, so a frame runs from `File "` to the next frame or message. What reaches lunr is
  // the words of the messages (from each `SomeError:` or `SomeWarning:` on), at most WORDS of
  // them, each at most LONGEST characters, so that no paste and no syntax (`grad~1000`, a
  // 20,000-character log) makes lunr's work large.
  const WORDS = 32
  const LONGEST = 40
  const HEAD = String.raw`\b(?:[\w.]*(?:Error|Warning|Exception)|[\w.]*exc\.\w+)\s*:(?!:)`
  const HEADS = new RegExp(HEAD, "g")
  const FRAMES = new RegExp(String.raw`\bFile "[^"]*", line \d+[\s\S]*?(?=\bFile "|${HEAD}|$)`, "g")
  const NOISE = /Traceback \(most recent call last\):|The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:|\(Triggered internally at [^)]*\)\.?|[~^]{2,}/g
  const PREFIX = new RegExp(String.raw`\S*:\d+: (?=${HEAD})`, "g")  // a warning's `path:line: `
  const PATH_OR_URL = /\S*(?:[\\/]|:\/\/)\S*/g

  function read(text) {
    const framed = /\bFile "[^"]*", line \d+/.test(text)
    text = text.replace(NOISE, " ").replace(FRAMES, " ").replace(PREFIX, " ")
    const starts = [...text.matchAll(HEADS)].map(head => head.index)
    const message = (starts.length ? starts : [0]).map((start, i) =>
      text.slice(start, starts[i + 1]).replace(PATH_OR_URL, " "))
    const words = wordsOf(message.join(" "))
    // In a message, numbers and words of one or two letters (the `t` of "can't") are noise.
    const query = words.length > 3 ? distinct(words.filter(w => w.length > 2 && !/^\d+$/.test(w))) : words
    return {
      query: query.slice(0, WORDS).join(" "),
      found: find(message),
      paste: {
        looksLikeMessage: starts.length > 0 || framed || words.length >= 12,
        headline: message[message.length - 1].replace(/\s+/g, " ").trim().slice(0, 120),
      },
    }
  }

  const wordsOf = text => (text.match(/[\p{L}\p{N}_][\p{L}\p{N}_.]*/gu) || [])
    .map(word => word.replace(/\.+$/, "")).filter(word => word.length <= LONGEST)

  function distinct(words) {
    const seen = new Set()
    return words.filter(word => {
      const key = word.toLowerCase()
      return !seen.has(key) && !isStopWord(key) && seen.add(key)
    })
  }

  const isStopWord = word => !lunr.stopWordFilter(new lunr.Token(word))

  // --- Which section shows it --------------------------------------------------------------
  // The error index (docs/errors.md) names each problem by the start of its message, and the
  // older wordings readers still paste; hooks/search_terms.py hands them over as
  // config.messages, [location, text] in the index's order. A message matches when the paste
  // holds at least COVERED of its words, and three of them at least, or all of a shorter one.
  // The reader's shapes, numbers and operation names differ from the index's: words are
  // compared stemmed ("Tensors", "Tensor") and without their digits ("0th", "1th"), and a
  // node's name (`LogBackward0`) is not required of the paste; a paste's node name also stands
  // for its operation (`UnbindBackward` for "Unbind"). The last message of the paste that
  // matches decides (a traceback ends with the exception it is about), an error before any
  // warning (anomaly mode's warning comes with the error it is about, before or after it); in
  // one message the fullest match, then the one that met more words, then the index's first row.
  const COVERED = 0.75
  const NODE = /^(\w+?)backward$/

  // The index's messages with their key words, made once, when the worker is set up.
  const indexed = messages => messages.map(([location, text]) =>
    ({location, text, words: keyWords(text).filter(word => !NODE.test(word))}))

  const isWarning = message => /^[\w.]*Warning\s*:/.test(message)

  function find(messages) {
    const last = [...messages].reverse()
    for (const message of [...last.filter(m => !isWarning(m)), ...last.filter(isWarning)]) {
      const have = new Set(keyWords(message).flatMap(word => [word, ...keyWords((word.match(NODE) || [])[1] || "")]))
      let best = null
      for (const row of site.rows) {
        const met = row.words.filter(word => have.has(word)).length
        const share = met / row.words.length
        if (share >= COVERED && (met >= 3 || met === row.words.length) && met > 0
            && (!best || share > best.share || (share === best.share && met > best.met)))
          best = {row, share, met}
      }
      if (best) {
        const words = (best.row.text.match(/[\p{L}_]{3,}/gu) || []).filter(word => have.has(keyWords(word)[0]))
        return {location: best.row.location, words: words.filter(word => !isStopWord(word.toLowerCase()))}
      }
    }
    return null
  }

  const keyWords = text => [...new Set((text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [])
    .map(word => /\D/.test(word) ? word.replace(/\d+/g, "") : word)
    .filter(word => word.length > 1 && !/^\d+$/.test(word) && !isStopWord(word))
    .map(word => lunr.stemmer(new lunr.Token(word)).toString()))]

  // --- lunr, mended ------------------------------------------------------------------------
  function mendLunr() {
    // lunr 2.3.9 builds one automaton of every indexed word and merges its equal nodes, naming
    // a node by its edges: each label followed by the id of the node it leads to. With digits
    // among the labels that name is ambiguous (label "1" to node 23 reads as label "1" to node 2
    // followed by label "3"), so nodes that differ are merged, a query's expansion then reaches
    // words the index does not hold, and the worker throws: Material shows no result for "0",
    // nor for any pasted message with " 0 " in it. Ending each id with a comma makes the names
    // unique.
    lunr.TokenSet.prototype.toString = function () {
      if (this._str) return this._str
      let name = this.final ? "1" : "0"
      for (const label of Object.keys(this.edges).sort())
        name += label + this.edges[label].id + ","
      return (this._str = name)
    }

    // Material ends every word of a query with a wildcard, so that a word being typed finds
    // the words it begins: "detach" finds "detach_". A message pasted whole is no word being
    // typed: its short words ("a", "to", "in") then match every indexed word they begin, and
    // "tensor" matches "tensor_hooks". In a query of more than three words, each word is
    // matched as it is, after lunr's stop-word filter, as the pages' words were indexed.
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
  }
})();
