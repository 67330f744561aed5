package trial

import (
	"context"
	"os/exec"
)

// execCommand returns the command name args with environment env.
func execCommand(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	return cmd
}
