"""Wrong: ema_update_ averages the whole state_dict, so buffers (running stats) change too."""

from solutions.q08_no_grad_detach import evaluate, round_ste  # the rest as in the reference


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError("decay must be in [0, 1]")
    t_state, s_state = target.state_dict(), source.state_dict()
    if t_state.keys() != s_state.keys() or any(
        t_state[k].shape != s_state[k].shape for k in t_state
    ):
        raise ValueError("target and source do not match")
    # state_dict tensors are detached, and load_state_dict copies in place.
    target.load_state_dict({k: decay * v + (1 - decay) * s_state[k] for k, v in t_state.items()})
