"""A NumPy float64 attention, written apart from the kernels' C++
reference: forward (out and the natural-log log-sum-exp) and gradients."""
import numpy as np


def visible(sq, sk, causal, bottom_right, left, right):
    """[Sq, Sk] booleans: which keys each query sees (FlashAttention's
    window_size from the top-left or bottom-right diagonal)."""
    offset = sk - sq if bottom_right else 0
    diff = np.arange(sk)[None, :] - (np.arange(sq)[:, None] + offset)
    seen = np.ones((sq, sk), bool)
    if causal or right >= 0:
        seen &= diff <= (0 if causal else right)
    if left >= 0:
        seen &= diff >= -left
    return seen


def scores(q, k, scale, softcap):
    """[Sq, Sk] scores of one head: scaled, capped to c tanh(s / c)."""
    s = scale * q @ k.T
    return softcap * np.tanh(s / softcap) if softcap else s


def attention64(q, k, v, scale, causal, bottom_right, left, right,
                softcap=0.0):
    """float64 attention and natural-log log-sum-exp; a row that sees no
    key: out 0, lse +inf."""
    b, hq, sq, _ = q.shape
    hkv, sk, dv = k.shape[1], k.shape[2], v.shape[3]
    group = hq // hkv
    seen = visible(sq, sk, causal, bottom_right, left, right)
    rows = seen.any(1)
    out = np.zeros((b, hq, sq, dv))
    lse = np.full((b, hq, sq), np.inf)
    for e in range(b):
        for h in range(hq):
            s = np.where(seen, scores(q[e, h], k[e, h // group], scale,
                                      softcap), -np.inf)
            m = np.where(rows, s.max(1), 0.0)
            p = np.exp(s - m[:, None])
            total = p.sum(1)
            out[e, h, rows] = (p[rows] / total[rows, None]) @ v[e, h // group]
            lse[e, h, rows] = m[rows] + np.log(total[rows])
    return out, lse


def attention64_backward(q, k, v, dout, scale, causal, bottom_right, left,
                         right, softcap=0.0):
    """(dq, dk, dv) of attention64's out for the incoming gradient `dout`,
    by the softmax's Jacobian written out (not the kernels' formulas)."""
    b, hq, sq, _ = q.shape
    hkv, sk = k.shape[1], k.shape[2]
    group = hq // hkv
    seen = visible(sq, sk, causal, bottom_right, left, right)
    dq, dk, dv = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    for e in range(b):
        for h in range(hq):
            kk, vv, g = k[e, h // group], v[e, h // group], dout[e, h]
            raw = scale * q[e, h] @ kk.T
            s = np.where(seen, scores(q[e, h], kk, scale, softcap), -np.inf)
            p = np.zeros_like(s)
            for i in np.nonzero(seen.any(1))[0]:
                w = np.exp(s[i] - s[i].max())
                p[i] = w / w.sum()
            dv[e, h // group] += p.T @ g
            dp = g @ vv.T
            # d out_i / d s_ij = p_ij (v_j - out_i): the softmax Jacobian.
            ds = p * (dp - (p * dp).sum(1, keepdims=True))
            if softcap:
                ds *= 1 - np.tanh(raw / softcap) ** 2
            dq[e, h] += scale * ds @ kk
            dk[e, h // group] += scale * ds.T @ q[e, h]
    return dq, dk, dv
