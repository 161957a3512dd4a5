package rules

// A frame can hold 10,000 QPs, nearly all of them as they were one sample
// before. A qp-scope condition that reads nothing but its QP and params
// (Variant.qpLocal: it compiles against qpOnlyEnv) gives the same answer
// on a QP that did not change, so the engine keeps its answers by the
// QP's place and runs it only on the QPs that changed (objectSet.same).

// qpAnswers are a variant's answers on the QPs of QP frame gen.
type qpAnswers struct {
	gen uint64
	ans []answer
	err error // the last evaluation error, given again with its answer
}

// qpMemo is a variant's answers while it goes through a frame's QPs.
type qpMemo struct {
	a     *qpAnswers // nil: the variant reads more than its QP
	valid bool       // a holds the previous QP frame's answers
}

// qpMemo returns v's answers for the QPs of s.
func (e *Engine) qpMemo(v *Variant, s *objectSet) qpMemo {
	if !v.qpLocal {
		return qpMemo{}
	}
	a := e.qpAns[v]
	if a == nil {
		a = &qpAnswers{}
		e.qpAns[v] = a
	}
	m := qpMemo{a: a, valid: a.gen != 0 && a.gen == s.gen-1}
	if cap(a.ans) < len(s.qps) {
		a.ans = append(a.ans[:cap(a.ans)], make([]answer, len(s.qps)-cap(a.ans))...)
	}
	a.ans = a.ans[:len(s.qps)]
	a.gen = s.gen
	return m
}

// reuse returns the answer QP i had in the previous frame when it did
// not change, unasked otherwise.
func (m qpMemo) reuse(i int, s *objectSet) (answer, error) {
	if m.a == nil || !m.valid || !s.same[i] {
		return unasked, nil
	}
	a := m.a.ans[i]
	if a == unknown {
		return a, m.a.err
	}
	return a, nil
}

// keep records the answer on QP i.
func (m qpMemo) keep(i int, a answer, err error) {
	if m.a == nil {
		return
	}
	m.a.ans[i] = a
	if err != nil {
		m.a.err = err
	}
}
