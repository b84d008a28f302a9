"""paddle.distributed.fleet.base: the modules Paddle 2.0 keeps fleet's pieces in, which
programs import by that path (PaddleRec's tools: `import
paddle.distributed.fleet.base.role_maker as role_maker`); each names refimpl's own."""
