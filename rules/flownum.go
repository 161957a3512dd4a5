package rules

// Numbers in the flow quick tests (flowfast.go), computed as expr's
// runtime computes them.

// num is a number as expr's runtime computes with it: integers of any Go
// type as int (i), and as float64 (f, converted from the original type)
// when the other operand is a float; float says it is a float64.
type num struct {
	i     int
	f     float64
	float bool
}

func numU(x uint64) num  { return num{i: int(x), f: float64(x)} }
func numI(x int) num     { return num{i: x, f: float64(x)} }
func numF(x float64) num { return num{f: x, float: true} }

// cmpNum compares as runtime.Equal, Less, ... do on ints, uints and
// float64s: as ints when both are integers, else as float64s
// (TestFlowNumbersAreExprs checks it against them).
func cmpNum(op string, a, b num) bool {
	if !a.float && !b.float {
		return compare(op, a.i, b.i)
	}
	return compare(op, a.f, b.f)
}

// compare applies op with Go's own operators (so NaN compares as expr's
// runtime compares it); an op other than == != < > <= is >=.
func compare[T int | float64](op string, a, b T) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case ">":
		return a > b
	case "<=":
		return a <= b
	}
	return a >= b
}

// arithNum adds, subtracts or multiplies as runtime.Add, Subtract and
// Multiply do: an int when both are integers, else a float64.
func arithNum(op string, a, b num) num {
	if !a.float && !b.float {
		switch op {
		case "+":
			return numI(a.i + b.i)
		case "-":
			return numI(a.i - b.i)
		}
		return numI(a.i * b.i)
	}
	switch op {
	case "+":
		return numF(a.f + b.f)
	case "-":
		return numF(a.f - b.f)
	}
	return numF(a.f * b.f)
}
