package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResourceOpsCoverEveryCase reads resourceRule's switch and checks
// that every op a case names is in resourceOps, which resourceRule tries
// first: an op added to a case but not there would never reach its case.
func TestResourceOpsCoverEveryCase(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "resource.go", nil, 0)
	require.NoError(t, err)
	var named []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "resourceRule" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, e := range cc.List {
				ast.Inspect(e, func(n ast.Node) bool {
					if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.EQL {
						if l, ok := b.Y.(*ast.BasicLit); ok && l.Kind == token.STRING {
							op, err := strconv.Unquote(l.Value)
							require.NoError(t, err)
							named = append(named, op)
						}
					}
					return true
				})
			}
			return true
		})
	}
	require.NotEmpty(t, named, "no case of resourceRule names an op")
	for _, op := range named {
		require.True(t, resourceOps[op], "resourceRule has a case for %s, which resourceOps lacks", op)
	}
	for op := range forwardsHandle {
		require.True(t, resourceOps[op], op)
	}
	for op := range tableOps {
		require.True(t, resourceOps[op], op)
	}
}
